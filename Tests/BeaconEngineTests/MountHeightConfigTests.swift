import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// A store's `mount_height_m`: read, defaulted, checked, and written back as it was given.
@Suite("Mount height key")
struct MountHeightConfigTests {
    static func text(_ height: String?) -> String {
        let key = height.map { #""mount_height_m":\#($0),"# } ?? ""
        return #"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,\#(key)"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}]}"#
    }

    @Test("read per store, 1.5 m where none is given")
    func readAndDefault() throws {
        let given = try ChainConfig.parse(Array(Self.text("0.5").utf8))
        #expect(given.stores[0].mountHeight == 0.5)
        #expect(try given.resolve().stores[0].mountHeight == 0.5)
        let absent = try ChainConfig.parse(Array(Self.text(nil).utf8))
        #expect(absent.stores[0].mountHeight == nil)
        #expect(try absent.resolve().stores[0].mountHeight == ChainConfig.Store.defaultMountHeight)
        #expect(ChainConfig.Store.defaultMountHeight == 1.5)
        // Written back only when given.
        #expect(!String(decoding: try JSONEncoder().encode(absent), as: UTF8.self).contains("mount_height_m"))
        #expect(String(decoding: try JSONEncoder().encode(given), as: UTF8.self).contains(#""mount_height_m":0.5"#))
    }

    @Test("a height out of 0…20 m or not a number is reported at its path", arguments: ["-1", "25", "\"high\""])
    func invalid(_ value: String) throws {
        do {
            _ = try ChainConfig.parse(Array(Self.text(value).utf8))
            Issue.record("mount_height_m \(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.path == "$.stores[0].mount_height_m" }, "\(error)")
        }
    }
}
