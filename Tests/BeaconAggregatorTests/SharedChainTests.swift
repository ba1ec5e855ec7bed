import Foundation
import Logging
import TestSupport
import Testing
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
@testable import BeaconAggregator
@testable import BeaconEngine

/// Several instances sharing a chain (`--stores`) share the retained device-state topics: one must
/// not overwrite another's newer state of a device with an older one of its own — a device that
/// walked from one instance's store into another's, and was exited from the first after it had
/// entered the second, must not show outside. The rules are ``SharedStateArbiter``'s.
@Suite("Aggregator instances sharing a chain")
struct SharedChainTests {
    static let t0: Int64 = 1_790_000_000_000

    /// One batch per gateway per second from `from` for `seconds`; `heard` gateways hear the phone.
    static func traffic(from: Int64, seconds: Int, heard: Set<String>, seq: inout [String: UInt64]) -> [(String, [UInt8])] {
        var lines: [(String, [UInt8])] = []
        for second in 0..<seconds {
            let start = from + Int64(second) * 1000
            for gw in ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"] {
                let sightings = heard.contains(gw) ? (0..<4).map { Sighting(device: Fixture.phone, time: start + Int64($0) * 250, rssi: -60, txPower: -59) } : []
                let n = seq[gw, default: 0]
                seq[gw] = n + 1
                let batch = SightingBatch(gateway: try! GatewayID(gw), sequence: n, sent: start + 1000, sightings: sightings)
                lines.append(("beaconnet/sightings/\(gw == "gw-h" ? 2 : 1)/\(gw)", batch.encoded()))
            }
        }
        return lines
    }

    static func instance(_ stores: String) throws -> MessageProcessor {
        MessageProcessor(chain: try Fixture.config { $0.exitRule = .timeout }.resolve(), scheme: .standard,
                         aggregator: try AggregatorID("agg-\(stores)"), stores: try StoreSelection(parsing: stores))
    }

    /// `p` hears the phone in store 1 for 10 s, learns that another instance has it inside store
    /// 2 (heard there at 12 s), then hears it no more in store 1 for `quiet` seconds, store 2's
    /// gateway hearing it if `store2Hears`.
    static func walkOn(_ p: inout MessageProcessor, quiet: Int, store2Hears: Bool, seq: inout [String: UInt64]) -> [Outbound] {
        var out: [Outbound] = []
        for (topic, payload) in traffic(from: t0, seconds: 10, heard: ["gw-a"], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        var none: [Outbound] = []
        p.noteState(DeviceState(device: Fixture.phone, presence: .inside, uuid: Fixture.uuid, region: .store(2), storeName: "Harbour",
                                since: t0 + 11_000, lastSeen: t0 + 12_000, proximity: .near, confidence: 0.9, sequence: 3), into: &none)
        #expect(none.isEmpty)
        for (topic, payload) in traffic(from: t0 + 10_000, seconds: quiet, heard: store2Hears ? ["gw-h"] : [], seq: &seq) {
            p.handle(topic: topic, payload: payload, now: nil, into: &out)
        }
        return out
    }

    static func states(_ out: [Outbound]) -> [String] {
        out.filter { $0.topic.hasPrefix("beaconnet/devices/") }.compactMap { try? DeviceState.decode($0.payload) }
            .map { "\($0.presence) \($0.region.map { "\($0.store)" } ?? "-")" }
    }

    /// Two instances, one per store, joined by a broker without latency: every state either
    /// publishes becomes the retained one and reaches both (as their subscriptions would). Each
    /// second of traffic, `heard(second)` says which stores' gateways hear the phone (gw-a in
    /// store 1, gw-h in store 2); each instance's clock ticks every second. `offline[second]` sends that gateway's Last Will then (it stops
    /// sending). Store 1's batches of the seconds in `burst` reach the first instance only at the
    /// burst's end, all at once (its store bridge was down), and what it publishes meanwhile comes
    /// back only after it has decided them all. Returns the retained state at the end, its history
    /// and each instance's events.
    static func shared(seconds: Int, offline: [Int: String] = [:], burst: Range<Int>? = nil,
                       _ heard: (Int) -> Set<Int>) throws -> (retained: String, history: [String], events: [String]) {
        var instances = [try instance("1"), try instance("2")]
        var retained = "none"
        var history: [String] = []
        var events: [String] = []
        var seq: [String: UInt64] = [:]
        var down: Set<String> = []
        var held: [(String, [UInt8])] = []
        func deliver(_ out: [Outbound]) {
            var queue = out
            while !queue.isEmpty {
                let o = queue.removeFirst()
                if o.topic.hasPrefix("beaconnet/events/"), o.topic.split(separator: "/").count == 4 { events.append(String(o.topic.dropFirst(17))) }
                guard o.topic.hasPrefix("beaconnet/devices/"), let state = try? DeviceState.decode(o.payload) else { continue }
                retained = "\(state.presence) \(state.region.map { "\($0.store)" } ?? "-")"
                if history.last != retained { history.append(retained) }
                for i in instances.indices {
                    var more: [Outbound] = []
                    instances[i].noteState(state, into: &more)
                    queue += more
                }
            }
        }
        for second in 0..<seconds {
            if let gw = offline[second] {
                down.insert(gw)
                let status = Array(#"{"v":1,"gw":"\#(gw)","state":"offline"}"#.utf8)
                for i in instances.indices {
                    var out: [Outbound] = []
                    instances[i].handle(topic: "beaconnet/gateways/\(gw)/status", payload: status, now: nil, into: &out)
                    deliver(out)
                }
            }
            let stores = heard(second)
            let lines = Self.traffic(from: Self.t0 + Int64(second) * 1000, seconds: 1,
                                     heard: Set((stores.contains(1) ? ["gw-a"] : []) + (stores.contains(2) ? ["gw-h"] : [])), seq: &seq)
                .filter { line in !down.contains(String(line.0.split(separator: "/").last!)) }
            for (topic, payload) in lines {
                for i in instances.indices {
                    if i == 0, let burst, burst.contains(second), topic.hasPrefix("beaconnet/sightings/1/") {
                        held.append((topic, payload))
                        continue
                    }
                    var out: [Outbound] = []
                    instances[i].handle(topic: topic, payload: payload, now: nil, into: &out)
                    deliver(out)
                }
            }
            // The live service's clock tick: event time moves on where no batch comes (a store
            // whose only gateway died), minus the lateness allowed.
            for i in instances.indices where !(i == 0 && burst?.contains(second) == true) {
                var out: [Outbound] = []
                instances[i].advance(to: Self.t0 + Int64(second + 1) * 1000 - 2000, into: &out)
                deliver(out)
            }
            if let burst, second == burst.upperBound - 1 {
                var out: [Outbound] = []
                for (topic, payload) in held { instances[0].handle(topic: topic, payload: payload, now: nil, into: &out) }
                held = []
                deliver(out)
            }
        }
        return (retained, history, events)
    }

    /// Walks: the stores whose gateways hear the phone in each 10 s stage; the last stage lasts
    /// to the end (90 s), so every exit is decided.
    @Test("instances sharing a chain: the retained state shows where the device is, whichever instance decided last",
          arguments: [
            ("walks from store 1 into store 2", [[1], [2]], ["inside 1", "inside 2"]),
            ("heard by both stores for a while, then only in store 2", [[1], [1, 2], [2]], ["inside 1", "inside 2"]),
            // The first instance never left store 1, so it says nothing until store 2's exit
            // replaces its state; then it says it again.
            ("into store 2 and back to store 1 within the exit timeout", [[1], [2], [1]], ["inside 1", "inside 2", "outside 2", "inside 1"]),
            ("visits store 1, then store 2, then leaves the chain", [[1], [2], []], ["inside 1", "inside 2", "outside 2"]),
            ("visits store 2, then store 1, then leaves the chain", [[2], [1], []], ["inside 2", "inside 1", "outside 1"]),
          ] as [(String, [[Int]], [String])])
    func sharedRetainedState(_ walk: String, _ stages: [[Int]], _ expected: [String]) throws {
        let result = try Self.shared(seconds: 90) { second in Set(stages[min(second / 10, stages.count - 1)]) }
        // What a dashboard sees on the retained topic, in order (a store's own exit of a device
        // another instance holds is never shown).
        #expect(result.history == expected, "\(walk): events \(result.events)")
    }

    @Test("another instance losing a device (unknown) that this one still hears: the topic says inside, here")
    func otherLosesIt() throws {
        // Heard in both stores; store 2's only gateway dies at 30 s while store 1 keeps hearing it.
        let result = try Self.shared(seconds: 90, offline: [30: "gw-h"]) { _ in [1, 2] }
        #expect(result.retained == "inside 1", "\(result.history)")
    }

    @Test("an old unknown is not said again over a newer exit elsewhere")
    func oldUnknown() throws {
        // In store 2 until its only gateway dies at 10 s (unknown 2); then in store 1 from 30 to
        // 40 s, and gone. Store 2's instance still holds it unknown when store 1's exit comes.
        let result = try Self.shared(seconds: 120, offline: [10: "gw-h"]) { s in s < 10 ? [2] : (30..<40).contains(s) ? [1] : [] }
        #expect(result.retained == "outside 1", "\(result.history)")
    }

    @Test("an instance that decided a burst (its store's backlog after a bridge outage) before its own enter came back: its exit is not lost")
    func burst() throws {
        // In store 2 to 80 s, heard in store 1 too from 20 to 25 s; store 1's batches of 20–89 s
        // reach its instance at 90 s, at once. The device has left both by the end.
        let result = try Self.shared(seconds: 150, burst: 20..<90) { s in s < 20 ? [2] : s < 25 ? [1, 2] : s < 80 ? [2] : [] }
        #expect(result.retained.hasPrefix("outside"), "\(result.history)")
    }

    @Test("a device's seq goes on across a restart of an instance whose exit was withheld (the snapshot keeps outside devices)")
    func seqAcrossRestart() throws {
        var p = try Self.instance("1")
        var seq: [String: UInt64] = [:]
        let out = Self.walkOn(&p, quiet: 50, store2Hears: false, seq: &seq)
        let before = out.filter { $0.topic.hasPrefix("beaconnet/events/1/") }.compactMap { try? RegionEvent.decode($0.payload) }.map(\.sequence)
        #expect(p.arbiter.statesWithheld > 0 && before.count >= 2)
        // Restart from the snapshot alone (the retained topic holds the other instance's state).
        var q = try Self.instance("1")
        #expect(q.restore(p.snapshot()) == 1)
        var after: [Outbound] = []
        for (topic, payload) in Self.traffic(from: Self.t0 + 60_000, seconds: 10, heard: ["gw-a"], seq: &seq) { q.handle(topic: topic, payload: payload, now: nil, into: &after) }
        let reentered = after.filter { $0.topic.hasPrefix("beaconnet/events/1/") }.compactMap { try? RegionEvent.decode($0.payload) }.map(\.sequence)
        #expect(!reentered.isEmpty && reentered.min()! > before.max()!, "before \(before), after \(reentered)")
    }

    @Test("an instance owning both stores is unaffected: it decides the move itself, and other states of its stores are its own")
    func owningAll() throws {
        var p = try Self.instance("1-2")
        var seq: [String: UInt64] = [:]
        let out = Self.walkOn(&p, quiet: 60, store2Hears: true, seq: &seq)
        #expect(Self.states(out) == ["inside 1", "outside 1", "inside 2"])
        #expect(p.arbiter.statesWithheld == 0)
    }

    @Test("two instances on a real broker: a device walks from store 1 (agg-1) into store 2 (agg-2); its retained state ends inside store 2")
    func twoInstances() async throws {
        try await withBroker { broker in
            func start(_ id: String, _ stores: String) throws -> RunningAggregator {
                try RunningAggregator.start(broker, id: id) {
                    $0.chain = try! Fixture.config { $0.exitRule = .timeout }.resolve()
                    $0.stores = try! StoreSelection(parsing: stores)
                    $0.eventTimeOnly = true
                }
            }
            let one = try start("agg-1", "1"), two = try start("agg-2", "2")
            let watch = try await Watcher.start(broker, ["beaconnet/#"])
            for id in ["agg-1", "agg-2"] {
                try await watch.until("\(id) online") { $0.topic == "beaconnet/aggregators/\(id)/status" && $0.text.contains("\"online\"") }
            }
            let publisher = try await LiveTraffic.client(broker)
            var seq: [String: UInt64] = [:]
            func send(_ lines: [(String, [UInt8])]) async throws {
                // Paced a little (25 ms per second of event time, five batches each), as a chain is:
                // one instance's state reaches the other before that one has decided seconds ahead.
                for (n, (topic, payload)) in lines.enumerated() {
                    try await publisher.publish(to: topic, payload: payload, qos: .atLeastOnce, retain: false)
                    if n % 5 == 4 { try await Task.sleep(for: .milliseconds(25)) }
                }
            }
            try await send(Self.traffic(from: Self.t0, seconds: 10, heard: ["gw-a"], seq: &seq))
            try await watch.until("enter store 1") { $0.topic == "beaconnet/events/1/enter" }
            try await send(Self.traffic(from: Self.t0 + 10_000, seconds: 60, heard: ["gw-h"], seq: &seq))
            try await watch.until("exit store 1") { $0.topic == "beaconnet/events/1/exit" }
            try await watch.until("enter store 2") { $0.topic == "beaconnet/events/2/enter" }
            try await one.stop()
            try await two.stop()
            // What a dashboard subscribing now learns: the retained state.
            let late = try await Watcher.start(broker, ["beaconnet/devices/+/state"])
            let retained = try await late.until("retained state") { $0.topic == "beaconnet/devices/\(Fixture.phone.rawValue)/state" }
            let state = try DeviceState.decode(retained.payload)
            #expect(state.presence == .inside && state.region?.store == 2, "\(retained.text)")
            await publisher.disconnect()
            await watch.stop()
            await late.stop()
        }
    }

    @Test("the status names the gateways of its stores it counts as down (silent, or by a Last Will), with their last batch: a dark store is visible at the central broker")
    func offlineGateways() throws {
        var p = MessageProcessor(chain: try Fixture.config().resolve(), scheme: .standard, aggregator: try AggregatorID("agg-1"),
                                 stores: try StoreSelection(parsing: "1"))
        var out: [Outbound] = []
        #expect(p.status(now: Self.t0, version: "t").counters.offline.isEmpty, "nothing to judge by before the first batch")
        var seq: [String: UInt64] = [:]
        for (topic, payload) in Self.traffic(from: Self.t0, seconds: 10, heard: [], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        #expect(p.status(now: Self.t0 + 10_000, version: "t").counters.offline.isEmpty)
        // gw-c goes quiet (its store broker, its WAN, the edge); gw-b2 sends its Last Will.
        var later: [String: UInt64] = seq
        let lines = Self.traffic(from: Self.t0 + 10_000, seconds: 30, heard: [], seq: &later).filter { !$0.0.hasSuffix("/gw-c") }
        p.handle(topic: "beaconnet/gateways/gw-b2/status", payload: Array(#"{"v":1,"gw":"gw-b2","state":"offline"}"#.utf8), now: nil, into: &out)
        for (topic, payload) in lines where !topic.hasSuffix("/gw-b2") { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        let status = p.status(now: Self.t0 + 40_000, version: "t")
        #expect(status.counters.offline == [try GatewayID("gw-c"): UInt64(Self.t0 + 10_000), try GatewayID("gw-b2"): UInt64(Self.t0 + 10_000)],
                "\(status.counters.offline); gw-h is another instance's")
        #expect(status.counters.offlineCount == 2)
        let decoded = try AggregatorStatus.decode(status.encoded())
        #expect(decoded.counters.offline == status.counters.offline)
    }

    @Test("a device walks into store 2 and store 2's only gateway dies before store 1 exits it: store 1 does not answer store 2's unknown with its stale inside")
    func walkedOnThenLost() throws {
        for die in [12, 15, 25] {
            let result = try Self.shared(seconds: 150, offline: [die: "gw-h"]) { s in s < 10 ? [1] : [2] }
            #expect(result.history == ["inside 1", "inside 2", "unknown 2"], "gateway dies at \(die) s")
        }
    }

    @Test("another instance's unknown heard there a moment later than here is answered at this instance's next sighting, not left standing")
    func unknownAnsweredLater() throws {
        var p = try Self.instance("1")
        var seq: [String: UInt64] = [:]
        var out: [Outbound] = []
        for (topic, payload) in Self.traffic(from: Self.t0, seconds: 10, heard: ["gw-a"], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        let mine = try #require(p.engine.currentState(of: Fixture.phone))
        let theirs = DeviceState(device: Fixture.phone, presence: .unknown, uuid: Fixture.uuid, region: .store(2), storeName: "Harbour",
                                 since: Self.t0 + 10_000, lastSeen: mine.lastSeen + 400, proximity: .unknown, confidence: 0.9, sequence: 4)
        var answer: [Outbound] = []
        p.noteState(theirs, into: &answer)
        #expect(answer.isEmpty, "not yet heard here as lately")
        for (topic, payload) in Self.traffic(from: Self.t0 + 10_000, seconds: 3, heard: ["gw-a"], seq: &seq) { p.handle(topic: topic, payload: payload, now: nil, into: &answer) }
        #expect(Self.states(answer) == ["inside 1"], "answered once, at the first later sighting")
        // Another state of the device first (the other instance found it again): nothing to answer.
        var q = try Self.instance("1")
        var none: [Outbound] = []
        var seq2: [String: UInt64] = [:]
        for (topic, payload) in Self.traffic(from: Self.t0, seconds: 10, heard: ["gw-a"], seq: &seq2) { q.handle(topic: topic, payload: payload, now: nil, into: &none) }
        q.noteState(theirs, into: &none)
        var inside = theirs
        inside.presence = .inside
        inside.sequence = 5
        q.noteState(inside, into: &none)
        var later: [Outbound] = []
        for (topic, payload) in Self.traffic(from: Self.t0 + 10_000, seconds: 3, heard: ["gw-a"], seq: &seq2) { q.handle(topic: topic, payload: payload, now: nil, into: &later) }
        #expect(Self.states(later).isEmpty, "\(Self.states(later))")
    }
}
