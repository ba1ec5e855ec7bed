import Foundation
import Logging
import Testing
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
@testable import BeaconAggregator

/// Several instances sharing a chain (`--stores`) share the retained device-state topics: one must
/// not overwrite another's newer state of a device with an older one of its own — a device that
/// walked from one instance's store into another's, and was exited from the first after it had
/// entered the second (a deployment review reproduced it: dashboards showed it outside).
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

    static func states(_ out: [Outbound]) -> [String] {
        out.filter { $0.topic.hasPrefix("beaconnet/devices/") }.compactMap { try? DeviceState.decode($0.payload) }
            .map { "\($0.presence) \($0.region.map { "\($0.store)" } ?? "-")" }
    }

    @Test("the instance owning store 1 exits a device that another instance has since seen in store 2: the exit event goes out, its older outside state does not")
    func olderStateWithheld() throws {
        func run(noting: Bool, stores: String) throws -> (events: [String], states: [String]) {
            var p = MessageProcessor(chain: try Fixture.config { $0.exitRule = .timeout }.resolve(), scheme: .standard,
                                     aggregator: try AggregatorID("agg-1"), stores: try StoreSelection(parsing: stores))
            var out: [Outbound] = []
            var seq: [String: UInt64] = [:]
            for (topic, payload) in Self.traffic(from: Self.t0, seconds: 10, heard: ["gw-a"], seq: &seq) {
                p.handle(topic: topic, payload: payload, now: nil, into: &out)
            }
            if noting {
                // Another instance's state: inside store 2, heard there at 12 s.
                p.noteState(DeviceState(device: Fixture.phone, presence: .inside, uuid: Fixture.uuid, region: .store(2), storeName: "Harbour",
                                        since: Self.t0 + 11_000, lastSeen: Self.t0 + 12_000, proximity: .near, confidence: 0.9, sequence: 3))
            }
            for (topic, payload) in Self.traffic(from: Self.t0 + 10_000, seconds: 60, heard: ["gw-h"], seq: &seq) {
                p.handle(topic: topic, payload: payload, now: nil, into: &out)
            }
            let events = out.map(\.topic).filter { $0.hasPrefix("beaconnet/events/1/") && $0.split(separator: "/").count == 4 }
            return (events, Self.states(out))
        }
        let shared = try run(noting: true, stores: "1")
        #expect(shared.events == ["beaconnet/events/1/enter", "beaconnet/events/1/exit"])
        #expect(shared.states == ["inside 1"], "the outside state of store 1 is withheld: \(shared.states)")
        let alone = try run(noting: false, stores: "1")
        #expect(alone.states == ["inside 1", "outside 1"], "without another instance's newer state it goes out: \(alone.states)")
        let owningAll = try run(noting: true, stores: "1-2")
        // Owning both stores, one instance decides the move itself: another instance's state
        // about a store it owns is not taken for newer knowledge.
        #expect(owningAll.states == ["inside 1", "outside 1", "inside 2"], "\(owningAll.states)")
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
}
