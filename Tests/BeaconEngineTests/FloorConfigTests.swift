import Foundation
import Testing
@testable import BeaconEngine

/// A section's `floor` and the tuning's `floor_db`: read, 0 and 14 by default, written back only
/// when given, refused out of range at their paths; and what the street test expects of a phone
/// upstairs.
@Suite("Floors in the chain")
struct FloorConfigTests {
    static func text(floor: String?, floorDB: String? = nil) -> String {
        let key = floor.map { #","floor":\#($0)"# } ?? ""
        let square = #"[[0,0],[10,0],[10,10],[0,10]]"#
        let sections = #"{"minor":1,"polygon":\#(square),"street_door":true},{"minor":2,"polygon":\#(square)\#(key)}"#
        let gateways = #"{"id":"gw-1","store":1,"section":1,"position":[5,5]},{"id":"gw-2","store":1,"section":2,"position":[5,5]}"#
        let tuning = floorDB.map { #","tuning":{"floor_db":\#($0)}"# } ?? ""
        return #"{"site_uuid":"E2C56DB5-DFFB-48D2-B060-D0F5A71096E0","stores":[{"major":1,"sections":[\#(sections)]}],"gateways":[\#(gateways)]\#(tuning)}"#
    }

    @Test("read per section, the street's floor where none is given, written back only when given")
    func readAndDefault() throws {
        let given = try ChainConfig.parse(Array(Self.text(floor: "1").utf8))
        #expect(given.stores[0].sections.map(\.floor) == [nil, 1])
        let chain = try given.resolve()
        #expect(chain.sections.map(\.floor) == [0, 1])
        #expect(chain.tuning.floorDB == 14)
        #expect(String(decoding: try JSONEncoder().encode(given), as: UTF8.self).contains(#""floor":1"#))
        let absent = try ChainConfig.parse(Array(Self.text(floor: nil).utf8))
        #expect(!String(decoding: try JSONEncoder().encode(absent.stores[0].sections[1]), as: UTF8.self).contains("floor"))
    }

    @Test("out of range, or not a whole number, it is refused at its path",
          arguments: [("100", "$.stores[0].sections[1].floor"), ("-10", "$.stores[0].sections[1].floor"), ("1.5", "$.stores[0].sections[1].floor")])
    func floorRefused(_ value: String, _ path: String) {
        do {
            _ = try ChainConfig.parse(Array(Self.text(floor: value).utf8))
            Issue.record("floor \(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.path == path }, "\(error)")
        }
    }

    @Test("floor_db out of 0…40 is refused at its path", arguments: ["-1", "41"])
    func floorLossRefused(_ value: String) {
        do {
            _ = try ChainConfig.parse(Array(Self.text(floor: "1", floorDB: value).utf8))
            Issue.record("floor_db \(value) was accepted")
        } catch {
            #expect(error.issues.contains { $0.path.hasSuffix("floor_db") }, "\(error)")
        }
    }

    @Test("the position rule's grid: a section over another has its own points, as many")
    func stackedGrid() {
        let room = [Chain.Point(x: 0, y: 0), Chain.Point(x: 4, y: 0), Chain.Point(x: 4, y: 2), Chain.Point(x: 0, y: 2)]
        let cells = PositionModel.grid([room, room], floors: [0, 1], step: 0.5)
        #expect(cells[0].count == 32 && cells[1].count == 32, "\(cells.map(\.count))")
        // On one floor the first polygon keeps the points, the second only its centroid.
        #expect(PositionModel.grid([room, room], step: 0.5)[1].count == 1)
    }

    @Test("a gateway on another floor is a storey further off and a floor's loss quieter")
    func vertical() throws {
        let chain = try ChainConfig.parse(Array(Self.text(floor: "1", floorDB: "10").utf8)).resolve()
        let same = chain.vertical(gateway: 0, section: 0, mountHeight: 1.5)
        #expect(same.height == 1.5 && same.loss == 0)
        // The ground floor's gateway seen from upstairs: below the phone, one floor between.
        let below = chain.vertical(gateway: 0, section: 1, mountHeight: 1.5)
        #expect(below.height == 1.5 - Chain.storeyHeight && below.loss == 10)
        let above = chain.vertical(gateway: 1, section: 0, mountHeight: 1.5)
        #expect(above.height == 1.5 + Chain.storeyHeight && above.loss == 10)
    }
}
