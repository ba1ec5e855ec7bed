import BeaconCore
import BeaconMQTT
import BeaconWire

/// What an aggregator of stores 101 and 102 publishes, as the dashboard's broker feed hands it
/// over: layouts, counts, events, device states and statuses, so that the routes have something
/// to show, to filter by store and to refuse.
enum Traffic {
    static let t0: Int64 = 1_790_000_000_000
    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let devices = [
        try! DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207"), try! DeviceID("mac-C4:7C:8D:6A:12:3F"),
        try! DeviceID("eu-edd1ebeac04e5defa017-0b1c2d3e4f50"),
    ]

    static var messages: [MQTTMessage] {
        var payloads: [(Topic, [UInt8])] = []
        for store: StoreNumber in [101, 102] {
            let layout = StoreLayout(
                store: store, name: "Store \(store) « Nord »", time: t0,
                sections: [
                    .init(minor: 1, name: "Entrance", polygon: [.init(x: 0, y: 0), .init(x: 10, y: 0), .init(x: 10, y: 8)], adjacent: [2], streetDoor: true),
                    .init(minor: 2, name: "Grocery \"fresh\"", polygon: [.init(x: 0, y: 8), .init(x: 10, y: 8), .init(x: 10, y: 16)], adjacent: [1]),
                ],
                gateways: [.init(id: try! GatewayID("gw-\(store)-1a"), section: 1, position: .init(x: 2, y: 2))])
            payloads.append((layout.topic, layout.encoded()))
            let count = Occupancy(region: .section(SectionRef(store: store, section: 2)), name: "Grocery", count: 4, time: t0 + 1000)
            payloads.append((count.topic, count.encoded()))
            for (n, device) in devices.enumerated() {
                let region = RegionScope.section(SectionRef(store: store, section: 2))
                let event = RegionEvent(kind: .enter, region: region, device: device, uuid: uuid, storeName: layout.name, sectionName: "Grocery",
                                        time: t0 + Int64(n), proximity: .near, confidence: 0.9, sequence: UInt64(n))
                payloads.append((event.topic, event.encoded()))
            }
            let state = DeviceState(device: devices[Int(store - 101)], presence: .inside, uuid: uuid, region: .store(store), since: t0,
                                    lastSeen: t0, proximity: .far, confidence: 0.5, sequence: 1)
            payloads.append((state.topic, state.encoded()))
            let gateway = GatewayStatus(gateway: try! GatewayID("gw-\(store)-1a"), state: .online, time: t0)
            payloads.append((gateway.topic, gateway.encoded()))
        }
        var status = AggregatorStatus(aggregator: try! AggregatorID("agg-1"), state: .online, version: "0.1.0", time: t0)
        status.counters = .init(loss: [try! GatewayID("gw-101-1a"): 3], lagMilliseconds: 900)
        payloads.append((status.topic, status.encoded()))
        return payloads.map { MQTTMessage(topic: TopicScheme.standard.string(for: $0.0), payload: $0.1, qos: .atLeastOnce, retain: true) }
    }
}
