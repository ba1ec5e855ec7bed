@testable import BeaconAggregator
import BeaconCore
import BeaconEngine
import BeaconMQTT
import BeaconWire
import Testing

/// The layouts the aggregator publishes at start: one per owned store, as the chain describes it.
@Suite("Aggregator: store layouts")
struct StoreLayoutsTests {
    static let config = ChainConfig(
        siteUUID: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0",
        stores: [
            .init(major: 12, name: "Lyon Part-Dieu", sections: [
                .init(minor: 1, name: "Entrance", adjacent: [3], polygon: [[0, 0], [10, 0], [10, 8], [0, 8]], streetDoor: true),
                .init(minor: 3, name: "Shoes", adjacent: [1], polygon: [[0, 8], [10, 8], [10, 16], [0, 16]], floor: 1),
            ]),
            .init(major: 13, name: "Bron", sections: [.init(minor: 1, name: "Hall")]),
        ],
        gateways: [
            .init(id: "gw-12-1a", store: 12, section: 1, position: [2, 3]),
            .init(id: "gw-12-3a", store: 12, section: 3),
            .init(id: "gw-13-1a", store: 13, section: 1),
        ])

    @Test("one retained layout per owned store: names, polygons, adjacency as minors, street door, floors, gateways")
    func layouts() throws {
        let chain = try Self.config.resolve()
        var settings = AggregatorSettings(
            chain: chain, mqtt: MQTTConfiguration(), aggregator: try AggregatorID("agg-1"), stores: try StoreSelection(parsing: "12"),
            version: "test", clock: { 1_732_350_000_000 })
        let messages = settings.layoutMessages()
        #expect(messages.map(\.topic) == ["beaconnet/stores/12/layout"])
        #expect(messages.first?.delivery == .retained(expirySeconds: nil))
        let layout = try StoreLayout.decode(try #require(messages.first).payload)
        #expect(layout.name == "Lyon Part-Dieu" && layout.time == 1_732_350_000_000)
        #expect(layout.sections.map(\.minor) == [1, 3] && layout.sections.map(\.adjacent) == [[3], [1]])
        #expect(layout.sections[0].streetDoor && !layout.sections[1].streetDoor)
        #expect(layout.sections.map(\.floor) == [0, 1])
        #expect(layout.sections[0].polygon == [.init(x: 0, y: 0), .init(x: 10, y: 0), .init(x: 10, y: 8), .init(x: 0, y: 8)])
        #expect(layout.gateways.map(\.id.rawValue) == ["gw-12-1a", "gw-12-3a"] && layout.gateways.map(\.section) == [1, 3])
        #expect(layout.gateways[0].position == .init(x: 2, y: 3) && layout.gateways[1].position == nil)
        settings.stores = .all
        #expect(settings.layoutMessages().map(\.topic) == ["beaconnet/stores/12/layout", "beaconnet/stores/13/layout"])
    }
}
