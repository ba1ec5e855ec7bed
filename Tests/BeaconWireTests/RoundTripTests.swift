import BeaconCore
import BeaconWire
import Testing

/// Every payload type, in ordinary and edge-case shapes, survives encode → decode unchanged.
@Suite("Round trips")
struct RoundTripTests {
    /// Everything a name may hold that an encoder must escape or keep whole (no controls: names refuse them).
    static let awkwardName = "Caf\u{E9} \"Nord\" \\ 1/2 😀 \u{200B}"

    static let cases: [PayloadCase] = [
        PayloadCase("batch", Fixtures.batch),
        PayloadCase("batch naming its edge run", SightingBatch(gateway: Fixtures.gateway, sequence: 0, sent: 1_732_350_001_000, sightings: [], epoch: 1_732_350_000_412)),
        PayloadCase("empty batch", SightingBatch(gateway: Fixtures.gateway, sequence: 0, sent: WireLimits.earliestTime, sightings: [])),
        PayloadCase("batch at the bounds", SightingBatch(
            gateway: try! GatewayID("gw-" + String(repeating: "z", count: 61)), sequence: (1 << 53) - 1, sent: WireLimits.latestTime,
            sightings: [
                Sighting(device: try! DeviceID("abcdefgh-" + String(repeating: "Z", count: 87)),
                         time: WireLimits.earliestTime, rssi: -127, txPower: 20, address: String(repeating: "F", count: 32)),
                Sighting(device: try! DeviceID("x-1"), time: WireLimits.latestTime, rssi: 20, txPower: -127, address: ""),
            ])),
        PayloadCase("section enter", Fixtures.sectionEnter),
        PayloadCase("store exit", Fixtures.storeExit),
        PayloadCase("event with awkward names and no accuracy", RegionEvent(
            kind: .exit, region: .section(SectionRef(store: 65535, section: 0)), device: Fixtures.badge,
            uuid: "f7826da6-4fa2-4e98-8024-bc5b71e0893e", storeName: awkwardName, sectionName: awkwardName, time: WireLimits.latestTime,
            proximity: .unknown, confidence: 0, sequence: 0)),
        PayloadCase("device state", Fixtures.state),
        PayloadCase("device outside, nowhere", DeviceState(
            device: Fixtures.cart, presence: .outside, uuid: Fixtures.siteUUID, since: 1_732_350_000_000, lastSeen: 1_732_350_000_000,
            proximity: .unknown, confidence: 1, sequence: 3)),
        PayloadCase("device inside a store, section undecided", DeviceState(
            device: Fixtures.cart, presence: .inside, uuid: Fixtures.siteUUID, region: .store(7), storeName: "Brest",
            since: 1_732_350_000_000, lastSeen: 1_732_350_000_100, proximity: .far, accuracy: 0, confidence: 0.5, sequence: 9)),
        PayloadCase("section occupancy", Fixtures.sectionOccupancy),
        PayloadCase("empty store", Occupancy(region: .store(0), count: 0, time: WireLimits.earliestTime)),
        PayloadCase("gateway online", Fixtures.gatewayOnline),
        PayloadCase("gateway last will", Fixtures.gatewayLastWill),
        PayloadCase("gateway with some counters", GatewayStatus(
            gateway: Fixtures.gateway, state: .online, time: 1_732_350_000_000, counters: .init(dropped: 4, buffered: 120))),
        PayloadCase("aggregator online", Fixtures.aggregatorOnline),
        PayloadCase("aggregator going offline", AggregatorStatus(aggregator: Fixtures.aggregator, state: .offline, version: "0.1.0", time: 1_732_350_000_000)),
        PayloadCase("a standby serving its primary's stores", AggregatorStatus(
            aggregator: Fixtures.aggregator, state: .online, version: "0.1.0", time: 1_732_350_000_000, stores: "1-250",
            standbyFor: try! AggregatorID("agg-eu-2"), serving: true)),
        PayloadCase("a standby standing by", AggregatorStatus(
            aggregator: Fixtures.aggregator, state: .online, version: "0.1.0", time: 1_732_350_000_000, standbyFor: try! AggregatorID("agg-eu-2"),
            serving: false)),
        PayloadCase("reject", Fixtures.reject),
        PayloadCase("reject of binary garbage", Reject(
            topic: "beaconnet/sightings/12/gw-12-3a", error: WireError(field: "", reason: .invalidUTF8(offset: 3)), time: 1_732_350_000_000,
            payload: [0x7B, 0x22, 0xFF, 0xFE, 0x00, 0x22] + Array(repeating: 0x41, count: 400))),
    ]

    @Test("encode then decode gives the value back", arguments: cases)
    func roundTrip(_ payload: PayloadCase) throws {
        let decoded = try payload.decode(payload.encode(), WireDecoder())
        #expect(AnyHashable(decoded) == AnyHashable(payload.value))
    }

    @Test("encoding is stable: decode then encode gives the same bytes", arguments: cases)
    func stableBytes(_ payload: PayloadCase) throws {
        let bytes = payload.encode()
        let again = try payload.decode(bytes, WireDecoder())
        #expect((again as! any WirePayload).encoded() == bytes)
    }

    @Test("every way of handing over bytes decodes the same")
    func inputs() throws {
        let bytes = Fixtures.batch.encoded()
        #expect(try SightingBatch.decode(bytes) == Fixtures.batch)
        #expect(try SightingBatch.decode(bytes[...]) == Fixtures.batch)
        #expect(try SightingBatch.decode(ContiguousArray(bytes)) == Fixtures.batch)
        #expect(try SightingBatch.decode(String(decoding: bytes, as: UTF8.self).utf8) == Fixtures.batch)
        #expect(try SightingBatch.decode(bytes.lazy.map { $0 }) == Fixtures.batch)  // not contiguous: copied once
        let raw = try bytes.withUnsafeBytes { try SightingBatch.decode($0) }
        #expect(raw == Fixtures.batch)
        let decoder = WireDecoder()
        let reused = try bytes.withUnsafeBytes { try decoder.decode(SightingBatch.self, from: $0) }
        #expect(reused == Fixtures.batch)
        // A payload inside a larger buffer, as a message slice would be.
        let framed = [UInt8](repeating: 0x20, count: 5) + bytes + [0x00, 0x58]
        let inner = try framed.withUnsafeBytes { try SightingBatch.decode(UnsafeRawBufferPointer(rebasing: $0[5..<(5 + bytes.count)])) }
        #expect(inner == Fixtures.batch)
    }

    @Test("unknown fields are ignored, so newer senders stay readable")
    func forwardCompatible() throws {
        let json = #"{"v":1,"gw":"gw-12-3a","seq":1,"sent":1732350000000,"fw":{"build":[1,2,3]},"sightings":[{"dev":"rec-1","t":1732350000000,"rssi":-60,"phy":"coded","tx":null,"addr":null}]}"#
        let batch = try SightingBatch.decode(json.utf8)
        #expect(batch.sightings == [Sighting(device: try DeviceID("rec-1"), time: 1_732_350_000_000, rssi: -60)])
    }

    @Test("accuracy and confidence are tamed when set: rounded, clamped, never NaN or infinite")
    func doubles() {
        var event = Fixtures.sectionEnter
        event.accuracy = 2.3456
        #expect(event.accuracy == 2.35)
        event.accuracy = .nan
        #expect(event.accuracy == nil)
        event.accuracy = .infinity
        #expect(event.accuracy == 1000)
        event.accuracy = -3
        #expect(event.accuracy == 0)
        event.confidence = 0.12345
        #expect(event.confidence == 0.123)
        event.confidence = .nan
        #expect(event.confidence == 0)
        event.confidence = 7
        #expect(event.confidence == 1)
        let text = String(decoding: event.encoded(), as: UTF8.self)
        #expect(text.contains(#""accuracy":0.0"#) && text.contains(#""confidence":1.0"#))
    }

    @Test("a reject keeps the first 256 bytes as valid UTF-8 and names the error")
    func reject() throws {
        let payload = Array(repeating: UInt8(ascii: "x"), count: 255) + [0xC3, 0xA9, 0x41]  // é cut in half at 256
        let error = WireError(field: "sightings[3].rssi", reason: .outOfRange(value: "45", bounds: "-127…20 dBm"))
        let reject = Reject(topic: "beaconnet/sightings/12/gw-12-3a", error: error, time: 1_732_350_000_000, payload: payload)
        #expect(reject.reason == "out_of_range")
        #expect(reject.field == "sightings[3].rssi")
        #expect(reject.detail == "sightings[3].rssi: 45 is out of range -127…20 dBm")
        #expect(reject.payloadPrefix == String(repeating: "x", count: 255) + "\u{FFFD}")
        #expect(try Reject.decode(reject.encoded()) == reject)

        let topicError = TopicError(topic: "beaconnet/x", level: 1, reason: .unknownKind("x"))
        let topicReject = Reject(topic: "beaconnet/x", error: topicError, time: 1_732_350_000_000, payload: [UInt8]())
        #expect(topicReject.reason == "unknown_topic_kind" && topicReject.field == nil && topicReject.payloadPrefix.isEmpty)
    }

    @Test("a status whose per-gateway maps outgrow the limit (a chain-wide outage) keeps the largest and still decodes")
    func bigStatus() throws {
        var loss: [GatewayID: UInt64] = [:], offline: [GatewayID: UInt64] = [:]
        for n in 0..<1500 {
            let id = try GatewayID("gw-\(n)")
            loss[id] = UInt64(n + 1)
            offline[id] = 1_732_350_000_000
        }
        let status = AggregatorStatus(aggregator: try AggregatorID("agg-1"), state: .online, version: "t", time: 1_732_350_010_000,
                                      counters: .init(loss: loss, offline: offline, offlineCount: 1500))
        let decoded = try AggregatorStatus.decode(status.encoded())
        #expect(decoded.counters.loss.count == 1000 && decoded.counters.offline.count == 1000 && decoded.counters.offlineCount == 1500)
        #expect(decoded.counters.loss.values.min() == 501, "the 1 000 largest losses")
    }
}
