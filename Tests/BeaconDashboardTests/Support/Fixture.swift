import BeaconCore
@testable import BeaconDashboard
import BeaconMQTT
import BeaconWire
import Foundation

/// Messages as the aggregators publish them, for the dashboard's tests without a broker: one
/// store's layout (101, two sections, one gateway), counts, region events, a device state and
/// an aggregator status.
enum Fixture {
    static let scheme = TopicScheme.standard
    static let t0: Int64 = 1_732_350_000_000
    static let layout = StoreLayout(
        store: 101, name: "Lyon Part-Dieu", time: t0,
        sections: [
            .init(minor: 1, name: "Entrance", polygon: [.init(x: 0, y: 0), .init(x: 10, y: 0), .init(x: 10, y: 8)], adjacent: [2], streetDoor: true),
            .init(minor: 2, name: "Grocery", polygon: [.init(x: 0, y: 8), .init(x: 10, y: 8), .init(x: 10, y: 16)], adjacent: [1], floor: 1),
        ],
        gateways: [.init(id: try! GatewayID("gw-101-1a"), section: 1, position: .init(x: 2, y: 2))])
    static let device = try! DeviceID("mac-C4:7C:8D:6A:12:3F")

    /// The `n`th enter event into section 2 of `store`, at `t0 + n` ms.
    static func event(_ n: Int, store: StoreNumber = 101) -> RegionEvent {
        RegionEvent(
            kind: .enter, region: .section(SectionRef(store: store, section: 2)), device: device,
            uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", storeName: "Lyon Part-Dieu", sectionName: "Grocery",
            time: t0 + Int64(n), proximity: .near, confidence: 0.9, sequence: UInt64(n))
    }

    /// `device` inside store 101.
    static func state(_ id: DeviceID = device) -> DeviceState {
        DeviceState(
            device: id, presence: .inside, uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", region: .store(101),
            since: t0, lastSeen: t0, proximity: .far, confidence: 0.5, sequence: 1)
    }

    /// `count` devices in section `section` of store 101.
    static func count(_ count: Int, section: SectionNumber = 2) -> Occupancy {
        Occupancy(region: .section(SectionRef(store: 101, section: section)), name: "Grocery", count: count, time: t0 + 1000)
    }

    /// An online aggregator of every store, with 3 batches lost from the layout's gateway.
    static func aggregator() -> AggregatorStatus {
        var status = AggregatorStatus(aggregator: try! AggregatorID("agg-1"), state: .online, version: "0.1.0", time: t0)
        status.counters = .init(loss: [try! GatewayID("gw-101-1a"): 3], lagMilliseconds: 900)
        return status
    }

    /// An HTTP listener with one connection open of 256.
    static let server = HealthView.Server(
        openConnections: 1, maxConnections: 256, connectionCapReached: 0, eventStreams: 0, maxEventStreams: 100, eventStreamsRefused: 0)
    /// A viewer of the whole chain without a login.
    static let everyone = Viewer(login: .none, scope: .chain)

    /// A retained message on `topic`.
    static func message(_ topic: Topic, _ payload: [UInt8]) -> MQTTMessage {
        MQTTMessage(topic: scheme.string(for: topic), payload: payload, qos: .atLeastOnce, retain: true)
    }

    /// The layout, a count, two events, the device's state and the aggregator's status.
    static var chain: [MQTTMessage] {
        [message(.storeLayout(101), layout.encoded()), message(count(4).topic, count(4).encoded()),
         message(.event(event(1).region, .enter), event(1).encoded()), message(.event(event(2).region, .enter), event(2).encoded()),
         message(.deviceState(device), state().encoded()), message(aggregator().topic, aggregator().encoded())]
    }
}
