import TestSupport
import Testing
import BeaconCore
import BeaconWire
@testable import BeaconAggregator
@testable import BeaconEngine

/// One gateway login can publish any device ids it likes: the aggregator lets each gateway bring
/// in at most `max_new_devices_per_gateway_s` devices new to the chain a second of its batches'
/// time, so a forger cannot fill the chain with invented devices, while what real gateways hear
/// enters as before.
@Suite("New devices per gateway")
struct NewDeviceLimitTests {
    static let t0: Int64 = 1_790_000_000_000
    static let limit = 40

    static func processor(limit: Int = limit) throws -> MessageProcessor {
        MessageProcessor(
            chain: try Fixture.config { $0.maxNewDevicesPerGatewayPerSecond = limit }.resolve(), scheme: .standard,
            aggregator: try AggregatorID("agg-test"))
    }

    /// Device `n` of a forger's invented run (a valid iBeacon id, never heard before).
    static func minted(_ n: Int) -> DeviceID {
        try! DeviceID("ib-\(Fixture.uuid)-\(60000 + n / 65536)-\(n % 65536)")
    }

    /// A batch from `gw` (store `store`) sent at `sent`, one sighting per device, 200 ms before it.
    static func batch(_ gw: String, store: Int, seq: UInt64, sent: Int64, _ devices: [DeviceID], rssi: Int = -60) -> (String, [UInt8]) {
        let sightings = devices.map { Sighting(device: $0, time: sent - 200, rssi: rssi, txPower: -59) }
        return ("beaconnet/sightings/\(store)/\(gw)", SightingBatch(gateway: try! GatewayID(gw), sequence: seq, sent: sent, sightings: sightings).encoded())
    }

    @Test("a gateway minting devices is capped at its budget; every sighting dropped is counted, with a reason")
    func forgerCapped() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        // 5 s of batches every 100 ms, each naming 200 devices never heard: 10 000 minted.
        let batches = 50, perBatch = 200
        var verdicts: [MessageProcessor.Verdict] = []
        for b in 0..<batches {
            let devices = (0..<perBatch).map { Self.minted(b * perBatch + $0) }
            let (topic, payload) = Self.batch("gw-a", store: 1, seq: UInt64(b), sent: Self.t0 + 1000 + Int64(b) * 100, devices)
            verdicts.append(p.handle(topic: topic, payload: payload, now: nil, into: &out))
        }
        // A full bucket, then the refill over the 4.9 s the batches span.
        let most = Self.limit + Self.limit * 49 / 10
        #expect(p.engine.trackedDevices <= most && p.engine.trackedDevices >= most - 1, "\(p.engine.trackedDevices) devices tracked")
        let dropped = UInt64(batches * perBatch - p.engine.trackedDevices)
        #expect(p.counters.newDeviceSightingsDropped == dropped)
        #expect(DecisionTally(p).newDeviceSightingsDropped == dropped, "reported to the metrics")
        #expect(p.counters.rejects["new_device_limit"] == UInt64(batches))
        #expect(p.counters.sightings == UInt64(p.engine.trackedDevices))
        guard case .rejected(.newDeviceLimit, let detail) = verdicts.last else {
            Issue.record("last verdict \(String(describing: verdicts.last))")
            return
        }
        #expect(detail.contains("gw-a") && detail.contains("max_new_devices_per_gateway_s") && detail.contains("\(perBatch - Self.limit / 10) device(s)"))
        let copy = try #require(out.last { $0.topic == "beaconnet/rejects/agg-test" })
        #expect(try Reject.decode(copy.payload).reason == "new_device_limit")
    }

    @Test("a batch dated back buys nothing, one dated ahead at most a full bucket")
    func datesBuyNothing() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        var n = 0
        func mint(_ count: Int, sent: Int64, seq: UInt64) {
            let devices = (0..<count).map { _ in defer { n += 1 }; return Self.minted(n) }
            let (topic, payload) = Self.batch("gw-a", store: 1, seq: seq, sent: sent, devices)
            p.handle(topic: topic, payload: payload, now: nil, into: &out)
        }
        mint(100, sent: Self.t0 + 10_000, seq: 0)
        #expect(p.engine.trackedDevices == Self.limit)
        mint(100, sent: Self.t0, seq: 1)
        #expect(p.engine.trackedDevices == Self.limit, "ten seconds back: nothing more")
        mint(100, sent: Self.t0 + 70_000, seq: 2)
        #expect(p.engine.trackedDevices == 2 * Self.limit, "a minute ahead: one bucket")
    }

    @Test("a normal gateway's devices all enter while another gateway mints; devices already tracked are never limited")
    func normalTrafficEnters() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        // Before the flood, the phone is tracked through gw-a.
        for second in 0..<3 {
            let (topic, payload) = Self.batch("gw-a", store: 1, seq: UInt64(second), sent: Self.t0 + Int64(second + 1) * 1000, [Fixture.phone])
            p.handle(topic: topic, payload: payload, now: nil, into: &out)
        }
        // 20 shoppers walk into store 2 (gw-h), four a second, while gw-a names 500 new devices a
        // second besides the phone.
        let shoppers = (0..<20).map { try! DeviceID("mac-AA:BB:CC:DD:02:\(String(format: "%02X", $0))") }
        for second in 3..<13 {
            let sent = Self.t0 + Int64(second + 1) * 1000
            let flood = (0..<500).map { Self.minted(second * 500 + $0) } + [Fixture.phone]
            let (topic, payload) = Self.batch("gw-a", store: 1, seq: UInt64(second), sent: sent, flood)
            p.handle(topic: topic, payload: payload, now: nil, into: &out)
            let arrived = Array(shoppers.prefix(4 * (second - 2)))
            let (hTopic, hPayload) = Self.batch("gw-h", store: 2, seq: UInt64(second - 3), sent: sent, arrived, rssi: -55)
            #expect(p.handle(topic: hTopic, payload: hPayload, now: nil, into: &out) == .accepted)
        }
        for shopper in shoppers {
            #expect(p.engine.currentState(of: shopper)?.state == .inside, "\(shopper) entered store 2")
        }
        #expect(p.engine.currentState(of: Fixture.phone) != nil)
        #expect(p.counters.newDeviceSightingsDropped == UInt64(10 * 500 - (p.engine.trackedDevices - 1 - shoppers.count)))
    }

    @Test("the key is read and checked with the rest of the tuning")
    func tuningKey() throws {
        func chain(_ tuning: String) -> [UInt8] {
            Array(#"{"site_uuid":"\#(Fixture.uuid)","stores":[{"major":1,"sections":[{"minor":1}]}],"gateways":[{"id":"gw-1","store":1,"section":1}],"tuning":\#(tuning)}"#.utf8)
        }
        #expect(try ChainConfig.parse(chain("{}")).tuning.maxNewDevicesPerGatewayPerSecond == 500)
        #expect(try ChainConfig.parse(chain(#"{"max_new_devices_per_gateway_s":25}"#)).tuning.maxNewDevicesPerGatewayPerSecond == 25)
        for bad in ["0", "-3", "2000000", "1.5", "\"many\""] {
            #expect {
                try ChainConfig.parse(chain(#"{"max_new_devices_per_gateway_s":\#(bad)}"#))
            } throws: { error in
                "\(error)".contains("$.tuning.max_new_devices_per_gateway_s")
            }
        }
    }
}
