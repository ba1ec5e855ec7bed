import Foundation
import TestSupport
import Testing
import BeaconCore
import BeaconWire
@testable import BeaconAggregator
@testable import BeaconEngine

@Suite("Message validation")
struct ProcessorTests {
    static let t0: Int64 = 1_790_000_000_000

    static func processor() throws -> MessageProcessor {
        MessageProcessor(chain: try Fixture.config().resolve(), scheme: .standard, aggregator: try AggregatorID("agg-test"))
    }

    /// Valid traffic: the phone heard in section 10 for 8 s, then in 20 for 8 s.
    static func validTraffic() -> [(String, [UInt8])] {
        var messages: [(String, [UInt8])] = []
        var seq: [String: UInt64] = [:]
        for second in 0..<16 {
            for (gw, level) in [("gw-a", second < 8 ? -58 : -78), ("gw-b", second < 8 ? -79 : -57)] {
                let sent = t0 + Int64(second + 1) * 1000
                let sightings = (0..<4).map { k in
                    Sighting(device: Fixture.phone, time: t0 + Int64(second) * 1000 + Int64(k) * 250, rssi: level, txPower: -59)
                }
                let s = seq[gw, default: 0]
                seq[gw] = s + 1
                let batch = SightingBatch(gateway: try! GatewayID(gw), sequence: s, sent: sent, sightings: sightings)
                messages.append(("beaconnet/sightings/1/\(gw)", batch.encoded()))
            }
        }
        return messages
    }

    static func text(_ s: String) -> [UInt8] { Array(s.utf8) }
    static let goodSighting = #"{"dev":"mac-AA:BB:CC:DD:EE:02","t":1790000000500,"rssi":-60}"#

    /// Each bad message: topic, payload, expected reason code.
    static let bad: [(String, Bytes, String)] = badMessages.map { ($0.0, Bytes($0.1), $0.2) }
    static let badMessages: [(String, [UInt8], String)] = [
        ("beaconnet/sightings/1/gw-zz", text(#"{"v":1,"gw":"gw-zz","seq":1,"sent":1790000001000,"sightings":[]}"#), "unknown_gateway"),
        ("beaconnet/sightings/1/gw-a", text(#"{"v":1,"gw":"gw-c","seq":1,"sent":1790000001000,"sightings":[]}"#), "gateway_mismatch"),
        ("beaconnet/sightings/2/gw-a", text(#"{"v":1,"gw":"gw-a","seq":1,"sent":1790000001000,"sightings":[]}"#), "store_mismatch"),
        ("beaconnet/sightings/1/gw-a", text(#"{"v":1,"gw":"gw-a","seq":900,"sent":1790000001000,"sightings":[{"dev":"mac-AA:BB:CC:DD:EE:02","t":1790000000500,"rssi":45}]}"#), "out_of_range"),
        ("beaconnet/sightings/1/gw-a", text(#"{"v":1,"gw":"gw-a","seq":901,"sent":1790000001000,"sightings":[{"dev":"mac-AA:BB:CC:DD:EE:02","t":1790000000500,"rssi":-60,"tx":99}]}"#), "out_of_range"),
        ("beaconnet/sightings/1/gw-a", text(#"{"v":1,"gw":"gw-a","seq":902,"sent":1790000001000,"sightings":[{"dev":"a/b","t":1790000000500,"rssi":-60}]}"#), "invalid_identity"),
        ("beaconnet/sightings/1/gw-a", [UInt8](repeating: 0x20, count: 1 << 20), "payload_too_large"),
        ("beaconnet/sightings/1/gw-a", text(#"{"v":1,"gw":"gw-a","seq":3,"#), "invalid_json"),
        ("beaconnet/sightings/1/gw-a", text("not json at all"), "invalid_json"),
        ("beaconnet/sightings/1/gw-a", text(#"{"v":2,"gw":"gw-a","seq":1,"sent":1790000001000,"sightings":[]}"#), "unsupported_version"),
        ("beaconnet/sightings/1/gw-a", [0x7B, 0x22, 0x76, 0x22, 0x3A, 0x31, 0x2C, 0x22, 0x67, 0x77, 0x22, 0x3A, 0x22, 0xFF, 0xFE, 0x22, 0x7D], "invalid_utf8"),
        ("beaconnet/sightings/1/gw+a", text(#"{}"#), "forbidden_topic_character"),
        ("beaconnet/sightings/99999/gw-a", text(#"{}"#), "invalid_topic_number"),
        ("beaconnet/sightings/1/gw-a", text(#"{"v":1,"gw":"gw-a","seq":904,"sent":1790000001000,"sightings":[{"dev":"mac-AA:BB:CC:DD:EE:02","t":1700000000000,"rssi":-60}]}"#), "sighting_time"),
    ]

    @Test("every malformed or spoofed message is rejected with its reason", arguments: bad)
    func rejected(_ topic: String, _ bytes: Bytes, _ reason: String) throws {
        let payload = bytes.bytes
        var p = try Self.processor()
        var out: [Outbound] = []
        let verdict = p.handle(topic: topic, payload: payload, now: nil, into: &out)
        guard case .rejected(let got, let detail) = verdict else {
            Issue.record("accepted: \(verdict)")
            return
        }
        #expect(got.code == reason, "\(detail)")
        #expect(p.counters.rejects[reason] == 1)
        let copy = try #require(out.first { $0.topic == "beaconnet/rejects/agg-test" })
        let decoded = try Reject.decode(copy.payload)
        #expect(decoded.reason == reason && decoded.topic == topic)
    }

    @Test("bad messages interleaved with valid traffic change nothing about the valid traffic's output")
    func validTrafficUnchanged() throws {
        var alone = try Self.processor()
        var expected: [Outbound] = []
        for (topic, payload) in Self.validTraffic() { alone.handle(topic: topic, payload: payload, now: nil, into: &expected) }
        #expect(expected.contains { $0.topic == "beaconnet/events/1/20/enter" })

        var mixed = try Self.processor()
        var got: [Outbound] = []
        for (i, (topic, payload)) in Self.validTraffic().enumerated() {
            let (badTopic, badPayload, _) = Self.badMessages[i % Self.badMessages.count]
            // Bad messages do not count towards the valid gateway's sequence, so use fresh seqs where they parse.
            mixed.handle(topic: badTopic, payload: badPayload, now: nil, into: &got)
            mixed.handle(topic: topic, payload: payload, now: nil, into: &got)
        }
        let valid = got.filter { !$0.topic.hasPrefix("beaconnet/rejects/") }
        #expect(valid == expected)
        #expect(mixed.counters.rejects.values.reduce(0, +) == UInt64(Self.validTraffic().count))
        #expect(mixed.counters.sightings == alone.counters.sightings)
    }

    @Test("a batch at the sighting limit (4 000 devices) is processed whole, ids kept apart")
    func batchAtTheLimit() throws {
        // 4 000 devices new to the chain from one gateway at once: more than it may bring in
        // by default (NewDeviceLimitTests), so the limit is raised here.
        var p = MessageProcessor(
            chain: try Fixture.config { $0.maxNewDevicesPerGatewayPerSecond = WireLimits.default.maxSightings }.resolve(), scheme: .standard,
            aggregator: try AggregatorID("agg-test"))
        let devices = try (0..<WireLimits.default.maxSightings).map { try DeviceID("ib-\(Fixture.uuid)-9-\($0)") }
        let sightings = devices.map { Sighting(device: $0, time: Self.t0 + 500, rssi: -60, txPower: -59, address: "AA:BB:CC:DD:EE:FF") }
        let payload = SightingBatch(gateway: try GatewayID("gw-a"), sequence: 0, sent: Self.t0 + 1000, sightings: sightings).encoded()
        var out: [Outbound] = []
        #expect(p.handle(topic: "beaconnet/sightings/1/gw-a", payload: payload, now: nil, into: &out) == .accepted)
        #expect(p.counters.sightings == UInt64(devices.count))
        #expect(p.engine.trackedDevices == devices.count)
        #expect(p.engine.current(devices[1234]) != nil)
    }

    @Test("a batch from the future (a broken gateway clock) is refused in live mode")
    func futureBatch() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        let batch = Self.text(#"{"v":1,"gw":"gw-a","seq":1,"sent":1790000100000,"sightings":[]}"#)
        let verdict = p.handle(topic: "beaconnet/sightings/1/gw-a", payload: batch, now: Self.t0, into: &out)
        #expect(verdict == .rejected(reason: .futureTime, detail: "sent 1790000100000 is 100 s ahead of this aggregator's clock: check the edge's NTP (or, for a time-compressed replay or simulation, run the aggregator with --event-time)"))
    }

    @Test("lag_ms is the clock minus the newest batch decided: it grows through a silence, though the clock ticks on")
    func lag() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        #expect(p.status(now: Self.t0, version: "t").counters.lagMilliseconds == nil)
        let batch = SightingBatch(gateway: try GatewayID("gw-a"), sequence: 0, sent: Self.t0, sightings: []).encoded()
        #expect(p.handle(topic: "beaconnet/sightings/1/gw-a", payload: batch, now: Self.t0 + 300, into: &out) == .accepted)
        #expect(p.status(now: Self.t0 + 300, version: "t").counters.lagMilliseconds == 300)
        // The live service's tick lets time pass every 250 ms; nothing arrives for 20 s.
        for tick in stride(from: Self.t0 + 250, through: Self.t0 + 20_000, by: 250) { p.advance(to: tick, into: &out) }
        #expect(p.status(now: Self.t0 + 20_000, version: "t").counters.lagMilliseconds == 20_000)
    }

    @Test("the tick moves event time only while no batch arrives and the connection is up, and not past the delivery lag")
    func tick() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        func batch(_ seq: UInt64, sent: Int64) -> [UInt8] {
            SightingBatch(gateway: try! GatewayID("gw-a"), sequence: seq, sent: sent, sightings: []).encoded()
        }
        // Connected for less than the hold: nothing moves (a resumed session's queue comes first).
        p.tick(now: Self.t0, connected: true, into: &out)
        p.tick(now: Self.t0 + 1000, connected: true, into: &out)
        #expect(p.engine.latestEventTime == nil)
        // A backlog: batches sent 20 s before they arrive, one every 100 ms of wall time. The
        // tick between them holds still; once they stop it moves to the clock minus that lag.
        for k in 0..<30 {
            let now = Self.t0 + 2000 + Int64(k) * 100
            #expect(p.handle(topic: "beaconnet/sightings/1/gw-a", payload: batch(UInt64(k), sent: now - 20_000), now: now, into: &out) == .accepted)
            p.tick(now: now + 50, connected: true, into: &out)
            #expect(p.engine.latestEventTime == now - 20_000)
        }
        let last = Self.t0 + 2000 + 29 * 100
        p.tick(now: last + 1000, connected: true, into: &out)
        #expect(p.engine.latestEventTime == last - 20_000)
        p.tick(now: last + 3000, connected: true, into: &out)
        #expect(p.engine.latestEventTime == last + 3000 - 20_000)
        // The connection down: the aggregator's own blindness moves nothing, nor does the hold
        // after it comes back.
        p.tick(now: last + 10_000, connected: false, into: &out)
        p.tick(now: last + 11_000, connected: true, into: &out)
        #expect(p.engine.latestEventTime == last + 3000 - 20_000)
        p.tick(now: last + 13_000, connected: true, into: &out)
        #expect(p.engine.latestEventTime == last + 13_000 - 20_000)
    }

    @Test("live mode refuses a batch further ahead than gateway_silence_s − lateness_s − 1 s (12 s): it would silence every other gateway")
    func futureBound() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        #expect(p.maxFuture == 12_000)
        func batch(_ seq: UInt64, ahead: Int64) -> [UInt8] {
            SightingBatch(gateway: try! GatewayID("gw-a"), sequence: seq, sent: Self.t0 + ahead, sightings: []).encoded()
        }
        #expect(p.handle(topic: "beaconnet/sightings/1/gw-a", payload: batch(1, ahead: 12_000), now: Self.t0, into: &out) == .accepted)
        guard case .rejected(let reason, _) = p.handle(topic: "beaconnet/sightings/1/gw-a", payload: batch(2, ahead: 13_000), now: Self.t0, into: &out) else {
            Issue.record("accepted a batch 13 s ahead")
            return
        }
        #expect(reason == .futureTime)
    }

    @Test("the arrival clock: start-up is no reconnection; a stall or a wall-clock step does not age every gateway at once")
    func arrivalClock() throws {
        func batch(_ gw: String, _ seq: UInt64, sent: Int64, heard: Bool = false) -> [UInt8] {
            let sightings = heard ? (0..<4).map { Sighting(device: Fixture.tag, time: sent - 1000 + Int64($0) * 250, rssi: -60, txPower: -59) } : []
            return SightingBatch(gateway: try! GatewayID(gw), sequence: seq, sent: sent, sightings: sightings).encoded()
        }
        var out: [Outbound] = []
        // Messages before the first tick (a resumed session's queue): not a reconnection.
        var p = try Self.processor()
        p.handle(topic: "beaconnet/sightings/1/gw-a", payload: batch("gw-a", 0, sent: Self.t0), now: Self.t0 + 10, into: &out)
        p.tick(now: Self.t0 + 100, connected: true, into: &out)
        #expect(p.engine.clock.reconnectedAt == nil)
        #expect(p.arrivalClock == Self.t0 + 100, "no time lost between the message and the tick")
        // Down, then up: a reconnection.
        p.tick(now: Self.t0 + 350, connected: false, into: &out)
        p.tick(now: Self.t0 + 60_000, connected: true, into: &out)
        #expect(p.engine.clock.reconnectedAt == p.arrivalClock && p.arrivalClock == Self.t0 + 100)

        // Only gw-c, whose clock is 10 min behind, hears the tag; at 120 s the process stalls 20 s.
        var q = try Self.processor()
        var wall = Self.t0
        for second in 0..<240 {
            if second == 120 { wall += 20_000 }
            wall += 1000
            for (k, gw) in ["gw-a", "gw-b", "gw-b2", "gw-c"].enumerated() {
                let sent = Self.t0 + Int64(second + 1) * 1000 - (gw == "gw-c" ? 600_000 : 0)
                q.handle(topic: "beaconnet/sightings/1/\(gw)", payload: batch(gw, UInt64(second), sent: sent, heard: gw == "gw-c"), now: wall + Int64(k), into: &out)
            }
            q.tick(now: wall + 500, connected: true, into: &out)
        }
        let events = out.filter { $0.topic.hasPrefix("beaconnet/events/1/") && !$0.topic.contains("/1/10/") && !$0.topic.contains("/1/20/") && !$0.topic.contains("/1/30/") }
        #expect(events.map(\.topic) == ["beaconnet/events/1/enter"], "\(events.map(\.traceLine))")
    }

    @Test("a gateway status from the future is refused in live mode, like a batch")
    func futureStatus() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        let status = GatewayStatus(gateway: try GatewayID("gw-a"), state: .online, time: Self.t0 + 3_600_000)
        let verdict = p.handle(topic: "beaconnet/gateways/gw-a/status", payload: status.encoded(), now: Self.t0, into: &out)
        guard case .rejected(let reason, _) = verdict else {
            Issue.record("accepted a status an hour ahead")
            return
        }
        #expect(reason == .futureTime)
        #expect(p.engine.latestEventTime == nil)
    }

    @Test("rejects are copied at most 20 per second; the rest only counted")
    func rejectRateLimit() throws {
        var p = try Self.processor()
        var out: [Outbound] = []
        for _ in 0..<50 { p.handle(topic: "beaconnet/sightings/1/gw-a", payload: Self.text("{"), now: Self.t0, into: &out) }
        #expect(out.count == 20)
        #expect(p.counters.rejects["invalid_json"] == 50 && p.counters.rejectCopiesSuppressed == 30)
    }

    @Test("another instance's store is ignored, not rejected")
    func notOwned() throws {
        var p = MessageProcessor(chain: try Fixture.config().resolve(), scheme: .standard, aggregator: try AggregatorID("agg-2"),
                                 stores: try StoreSelection(parsing: "2"))
        var out: [Outbound] = []
        let verdict = p.handle(topic: "beaconnet/sightings/1/gw-a", payload: Self.validTraffic()[0].1, now: nil, into: &out)
        #expect(verdict == .ignored && out.isEmpty)
    }

    @Test("store selections parse, merge and explain mistakes")
    func storeSelection() throws {
        let s = try StoreSelection(parsing: "300,1-250,240-260")
        #expect(s.description == "1-260,300")
        #expect(s.contains(255) && s.contains(300) && !s.contains(299))
        for bad in ["", "a", "5-1", "1-2-3", "70000", "1,,2"] {
            #expect(throws: StoreSelectionError.self) { try StoreSelection(parsing: bad) }
        }
    }

    @Test("after a restart, exits carry the same dwell as without one: the state says when the store and the section were entered")
    func dwellAcrossRestart() throws {
        var first = try Self.processor()
        var out: [Outbound] = []
        for (topic, payload) in Self.validTraffic() { first.handle(topic: topic, payload: payload, now: nil, into: &out) }
        let states = first.snapshot()
        #expect(states.first?.sectionSince != nil && states.first?.storeSince != nil && states.first?.sectionSince != states.first?.storeSince)
        var second = try Self.processor()
        #expect(second.restore(states) == 1)
        // Heartbeats only, from the gateways that heard the phone: it leaves.
        var silence: [(String, [UInt8])] = []
        for second in 16..<80 {
            for (k, gw) in ["gw-a", "gw-b"].enumerated() {
                let batch = SightingBatch(gateway: try GatewayID(gw), sequence: UInt64(16 + second * 2 + k), sent: Self.t0 + Int64(second + 1) * 1000, sightings: [])
                silence.append(("beaconnet/sightings/1/\(gw)", batch.encoded()))
            }
        }
        func exits(_ p: inout MessageProcessor) throws -> [RegionEvent] {
            var out: [Outbound] = []
            for (topic, payload) in silence { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
            return try out.filter { $0.topic.hasPrefix("beaconnet/events/") }.map { try RegionEvent.decode($0.payload) }
        }
        let continued = try exits(&first), restarted = try exits(&second)
        #expect(continued.map(\.kind) == [.exit, .exit] && restarted.map(\.kind) == [.exit, .exit])
        // The restored device exits later (no reception rate to shorten its timeout), but both
        // dwells count from the same entries: the section's at 8 s, the store's at the start.
        func entered(_ events: [RegionEvent]) -> [Int64?] { events.map { e in e.dwellMilliseconds.map { e.time - $0 } } }
        #expect(entered(restarted) == entered(continued))
        #expect(entered(continued).first != entered(continued).last, "section and store dwell differ here")
    }

    @Test("restore keeps the newest state per device, by when it was heard and decided; the sequence only breaks ties")
    func newestState() throws {
        func state(_ presence: DeviceState.Presence, since: Int64, lastSeen: Int64, seq: UInt64) -> DeviceState {
            DeviceState(device: Fixture.phone, presence: presence, uuid: Fixture.uuid, region: .store(1), since: since, lastSeen: lastSeen,
                        proximity: .far, confidence: 0.5, sequence: seq)
        }
        // A stale snapshot (inside, seq 50) and the retained outside decided after the device was
        // forgotten and heard again (its seq started again at 1).
        let stale = state(.inside, since: Self.t0, lastSeen: Self.t0 + 5000, seq: 50)
        let later = state(.outside, since: Self.t0 + 1_300_000, lastSeen: Self.t0 + 1_270_000, seq: 3)
        #expect(SharedStateArbiter.newest([stale], [later]) == [later])
        #expect(SharedStateArbiter.newest([later], [stale]) == [later])
        // An exit by silence: heard last at the same time as the inside state, decided after it.
        let exited = state(.outside, since: Self.t0 + 40_000, lastSeen: Self.t0 + 5000, seq: 51)
        #expect(SharedStateArbiter.newest([stale], [exited]) == [exited])
        let again = state(.outside, since: Self.t0 + 40_000, lastSeen: Self.t0 + 5000, seq: 52)
        #expect(SharedStateArbiter.newest([again], [exited]) == [again])
    }

    @Test("state payloads restore a processor after a restart: no enter event for someone already inside")
    func restoreFromStates() throws {
        var first = try Self.processor()
        var out: [Outbound] = []
        for (topic, payload) in Self.validTraffic().prefix(10) { first.handle(topic: topic, payload: payload, now: nil, into: &out) }
        let states = first.snapshot()
        #expect(states.count == 1 && states[0].presence == .inside)

        var second = try Self.processor()
        #expect(second.restore(states) == 1)
        var after: [Outbound] = []
        for (topic, payload) in Self.validTraffic().dropFirst(10) { second.handle(topic: topic, payload: payload, now: nil, into: &after) }
        #expect(!after.contains { $0.topic == "beaconnet/events/1/enter" })
        #expect(after.contains { $0.topic == "beaconnet/events/1/20/enter" })
    }

    @Test("an outside state restores the device's sequence: back within minutes, it goes on counting across the restart")
    func restoreOutsideSequence() throws {
        var first = try Self.processor()
        var out: [Outbound] = []
        for (topic, payload) in Self.validTraffic().prefix(10) { first.handle(topic: topic, payload: payload, now: nil, into: &out) }
        // The gateways go on sending empty batches; the device is heard no more and leaves (after
        // the first minute, while gw-b2 and gw-c, never heard, might still be filling a long window).
        for second_ in 11..<100 {
            for gw in ["gw-a", "gw-b"] {
                let batch = SightingBatch(gateway: try GatewayID(gw), sequence: UInt64(second_ - 6), sent: Self.t0 + Int64(second_) * 1000, sightings: [])
                first.handle(topic: "beaconnet/sightings/1/\(gw)", payload: batch.encoded(), now: nil, into: &out)
            }
        }
        let outside = try #require(out.last { $0.topic.hasSuffix("/state") }.map { try DeviceState.decode($0.payload) })
        #expect(outside.presence == .outside && outside.sequence > 1)

        var second = try Self.processor()
        #expect(second.restore([outside]) == 1)
        var after: [Outbound] = []
        // Back two minutes later.
        for second_ in 0..<4 {
            for gw in ["gw-a", "gw-b"] {
                let sent = Self.t0 + 120_000 + Int64(second_ + 1) * 1000
                let sightings = (0..<4).map { k in Sighting(device: Fixture.phone, time: sent - 1000 + Int64(k) * 250, rssi: gw == "gw-a" ? -58 : -79, txPower: -59) }
                let batch = SightingBatch(gateway: try GatewayID(gw), sequence: UInt64(second_), sent: sent, sightings: sightings)
                second.handle(topic: "beaconnet/sightings/1/\(gw)", payload: batch.encoded(), now: nil, into: &after)
            }
        }
        let enter = try #require(after.first { $0.topic == "beaconnet/events/1/enter" }.map { try RegionEvent.decode($0.payload) })
        #expect(enter.sequence == outside.sequence + 1, "a consumer deduping by (dev, seq) must not take the return for a repeat")
    }
}

extension ProcessorTests {
    @Test("the snapshot file keeps device states and gateway progress; a bad line is reported, the rest restored")
    func snapshotFile() throws {
        var first = try Self.processor()
        var out: [Outbound] = []
        for (topic, payload) in Self.validTraffic().prefix(10) { first.handle(topic: topic, payload: payload, now: nil, into: &out) }
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-snapshot-\(UInt32.random(in: 0...UInt32.max)).jsonl").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let written = SnapshotFile.Contents(states: first.snapshot(), gateways: first.gatewayProgress())
        #expect(written.states.count == 1 && !written.gateways.isEmpty)
        try SnapshotFile.write(written, path: path)
        // Damage: a truncated line in the middle (a disk that filled up, a hand edit).
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\n", with: "\n{\"v\":1,\"gw\":\"gw-a\",\"se\n", options: [], range: text.range(of: "\n"))
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        var problems: [String] = []
        let read = SnapshotFile.read(path: path) { problems.append($0) }
        #expect(read.states == written.states && read.gateways == written.gateways)
        #expect(problems.count == 1 && problems[0].contains(":2: "), "\(problems)")

        var second = try Self.processor()
        #expect(second.restore(read.states) == 1)
        #expect(second.resume(read.gateways) == written.gateways.count)
        #expect(second.gatewayProgress() == written.gateways)
    }
}

/// A payload as a test argument: printed by size and start, not byte by byte.
struct Bytes: Sendable, CustomTestStringConvertible {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }
    var testDescription: String { "\(bytes.count) bytes: \(String(decoding: bytes.prefix(40), as: UTF8.self).debugDescription)" }
}
