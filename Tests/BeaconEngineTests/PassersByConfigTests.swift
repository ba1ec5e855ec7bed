import BeaconCore
import Foundation
import Testing
@testable import BeaconEngine

/// A store's `passers_by`: read, off by default, written back only when given, and refused where
/// the street test that would judge its entries has nothing to go on.
@Suite("Passers-by key")
struct PassersByConfigTests {
    static let square = #"[[0,0],[10,0],[10,10],[0,10]]"#

    static func text(_ value: String?, polygon: Bool = true, door: Bool = true, position: Bool = true, streetExit: Bool = true) -> String {
        let key = value.map { #""passers_by":\#($0),"# } ?? ""
        let section = #"{"minor":1"# + (polygon ? #","polygon":\#(square)"# : "") + (door && polygon ? #","street_door":true"# : "") + "}"
        let gateway = #"{"id":"gw-1","store":1,"section":1"# + (position ? #","position":[5,5]"# : "") + "}"
        let tuning = streetExit ? "" : #","tuning":{"street_exit":false}"#
        return #"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,\#(key)"sections":[\#(section)]}],"gateways":[\#(gateway)]\#(tuning)}"#
    }

    @Test("read per store, off where none is given, written back only when given")
    func readAndDefault() throws {
        let given = try ChainConfig.parse(Array(Self.text("true").utf8))
        #expect(given.stores[0].passersBy == true)
        #expect(try given.resolve().stores[0].passersBy)
        let absent = try ChainConfig.parse(Array(Self.text(nil).utf8))
        #expect(absent.stores[0].passersBy == nil)
        #expect(try !absent.resolve().stores[0].passersBy)
        #expect(!String(decoding: try JSONEncoder().encode(absent), as: UTF8.self).contains("passers_by"))
        #expect(String(decoding: try JSONEncoder().encode(given), as: UTF8.self).contains(#""passers_by":true"#))
    }

    @Test("without what the street test needs it is refused at its path, saying what is missing",
          arguments: [("polygon", Self.text("true", polygon: false)), ("street_door", Self.text("true", door: false)),
                      ("position", Self.text("true", position: false)), ("street_exit", Self.text("true", streetExit: false))])
    func refused(_ missing: String, _ text: String) throws {
        do {
            _ = try ChainConfig.parse(Array(text.utf8))
            Issue.record("passers_by without a \(missing) was accepted")
        } catch {
            let issue = error.issues.first { $0.path == "$.stores[0].passers_by" }
            #expect(issue?.message.contains(missing) == true, "\(error)")
        }
        // Off, the same store is fine.
        #expect(throws: Never.self) { try ChainConfig.parse(Array(text.replacingOccurrences(of: #""passers_by":true,"#, with: "").utf8)) }
    }

    @Test("a value that is not true or false is reported at its path")
    func notABoolean() throws {
        do {
            _ = try ChainConfig.parse(Array(Self.text("\"yes\"").utf8))
            Issue.record("passers_by \"yes\" was accepted")
        } catch {
            #expect(error.issues.contains { $0.path == "$.stores[0].passers_by" }, "\(error)")
        }
    }
}
