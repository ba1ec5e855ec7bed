import BeaconCore
import BeaconWire

/// Realistic values shared by the tests; the golden payloads describe the same values as JSON.
enum Fixtures {
    /// The chain's site UUID (the CLBeaconRegion proximity UUID of the deployment).
    static let siteUUID = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    /// A shopper's phone running the chain's app, advertising as an iBeacon.
    static let phone = try! DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207")
    /// An Eddystone-UID tag on a cart.
    static let cart = try! DeviceID("eu-edd1ebeac04e5defa017-0b1c2d3e4f50")
    /// A staff badge known by its static address.
    static let badge = try! DeviceID("mac-C4:7C:8D:6A:12:3F")
    /// The gateway in section 3 of store 12.
    static let gateway = try! GatewayID("gw-12-3a")
    /// The aggregator for the European stores.
    static let aggregator = try! AggregatorID("agg-eu-1")
    /// Store 12, section 3 (shoes).
    static let shoes = SectionRef(store: 12, section: 3)

    static let batch = SightingBatch(
        gateway: gateway, sequence: 48213, sent: 1_732_350_000_000,
        sightings: [
            Sighting(device: phone, time: 1_732_349_999_412, rssi: -67, txPower: -59),
            Sighting(device: phone, time: 1_732_349_999_514, rssi: -71, txPower: -59),
            Sighting(device: cart, time: 1_732_349_999_630, rssi: -82, txPower: -62),
            Sighting(device: badge, time: 1_732_349_999_877, rssi: -90, address: "C4:7C:8D:6A:12:3F"),
        ])

    static let sectionEnter = RegionEvent(
        kind: .enter, region: .section(shoes), device: phone, uuid: siteUUID, storeName: "Lyon Part-Dieu",
        sectionName: "Household", time: 1_732_349_998_870, fromSection: 2, proximity: .near, accuracy: 2.35,
        confidence: 0.92, sequence: 17)

    static let storeExit = RegionEvent(
        kind: .exit, region: .store(12), device: cart, uuid: siteUUID, storeName: "Lyon Part-Dieu",
        time: 1_732_351_802_115, dwellMilliseconds: 1_874_300, proximity: .unknown, accuracy: nil, confidence: 0.85,
        sequence: 4)

    static let state = DeviceState(
        device: phone, presence: .inside, uuid: siteUUID, region: .section(shoes), storeName: "Lyon Part-Dieu",
        sectionName: "Household", since: 1_732_349_801_200, storeSince: 1_732_349_801_200, sectionSince: 1_732_349_998_870,
        lastSeen: 1_732_350_007_412, proximity: .near,
        accuracy: 1.8, confidence: 0.97, sequence: 18)

    static let sectionOccupancy = Occupancy(region: .section(shoes), name: "Household", count: 14, time: 1_732_350_010_000)
    static let storeOccupancy = Occupancy(region: .store(12), name: "Lyon Part-Dieu", count: 187, time: 1_732_350_010_000)

    static let gatewayOnline = GatewayStatus(
        gateway: gateway, state: .online, version: "0.1.0", section: shoes, adapter: "hci0", time: 1_732_350_000_000,
        counters: .init(reports: 1_843_221, published: 1_790_562, dropped: 0, malformed: 12, filtered: 52_647, buffered: 0))

    /// The Last Will the edge registers when it connects.
    static let gatewayLastWill = GatewayStatus(gateway: gateway, state: .offline)

    static let aggregatorOnline = AggregatorStatus(
        aggregator: aggregator, state: .online, version: "0.1.0", time: 1_732_350_010_000, stores: "1-250,300",
        counters: .init(
            messages: 918_273, batches: 918_105, sightings: 45_913_650, devices: 3120, rejects: ["invalid_json": 1, "out_of_range": 4],
            loss: [gateway: 2], restartGap: [gateway: 31], duplicates: [gateway: 3], seqAnomalies: [gateway: 1], unknownGatewayStatuses: 2,
            lagMilliseconds: 84, droppedPublishes: 0, offline: [try! GatewayID("gw-13-1"): 1_732_349_962_000], offlineCount: 1),
        snapshotError: .init(
            reason: "cannot flush /var/lib/beaconnet-aggregator/snapshot.jsonl.tmp: No space left on device", time: 1_732_350_000_000))

    static let reject = Reject(
        topic: "beaconnet/sightings/12/gw-12-3a", reason: "out_of_range", field: "sightings[3].rssi",
        detail: "sightings[3].rssi: 45 is out of range -127…20 dBm", time: 1_732_350_001_210,
        payloadPrefix: #"{"v":1,"gw":"gw-12-3a","seq":48214,"sent":1732350001000,"sightings":[{"dev":"ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207","t":1732350000412,"rssi":-66,"tx":-59},"#)
}
