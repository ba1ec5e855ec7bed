import BeaconCore
import Foundation
import TestSupport
import BeaconWire
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

/// `beacon-aggregator replay --reorder`: a trace put back into event-time order before the engine
/// sees it, so that a broker outage's backlogs, recorded one edge after another, replay as the
/// outage-free chain would have delivered them.
@Suite("Replay: event-time reordering of a trace")
struct ReplayReorderTests {
    static let t0: Int64 = 1_790_000_000_000

    @Test("lines come out oldest first once event time is a window past them; ties and timeless lines keep the trace's order")
    func order() {
        var r = EventTimeReorder<String>(window: 10)
        r.push("no time yet", source: nil, time: nil)
        #expect(r.pop() == "no time yet", "nothing to wait for before any time is known")
        r.push("b@105", source: "b", time: 105)
        r.push("a@100", source: "a", time: 100)
        r.push("c@105", source: "c", time: 105)
        r.push("status", source: nil, time: nil)
        #expect(r.pop() == nil, "105 is not 10 past 100 yet")
        r.push("d@110", source: "d", time: 110)
        r.push("d@111", source: "d", time: 111)
        #expect(r.pop() == nil, "event time is the second-newest gateway's: 110")
        r.push("b@110", source: "b", time: 110)
        #expect(r.pop() == "a@100")
        #expect(r.pop() == nil)
        r.push("e@120", source: "e", time: 120)
        r.push("a@121", source: "a", time: 121)
        var out: [String] = []
        while let l = r.pop() { out.append(l) }
        #expect(out == ["b@105", "c@105", "status", "d@110", "b@110"], "the status was read when 105 was event time")
        #expect(r.count == 3)
        #expect(r.pop(flush: true) == "d@111")
        #expect(r.pop(flush: true) == "e@120")
        #expect(r.pop(flush: true) == "a@121")
        #expect(r.pop(flush: true) == nil)
    }

    @Test("a window of 0 releases each line as soon as nothing older can be waiting for it")
    func zeroWindow() {
        var r = EventTimeReorder<Int>(window: 0)
        r.push(1, source: "a", time: 5)
        #expect(r.pop() == 1)
        r.push(2, source: "b", time: 3)
        #expect(r.pop() == 2, "older than the newest: released at once, as it would be without reordering")
    }

    @Test("when event time stalls (one of two gateways stopped), the capacity bound releases the oldest lines instead of holding the trace")
    func stalled() {
        var r = EventTimeReorder<Int>(window: 10_000, capacity: 1_000)
        r.push(-2, source: "a", time: 1_000)
        r.push(-1, source: "b", time: 1_000)
        var released: [Int] = []
        for n in 0..<100_000 {
            r.push(n, source: "a", time: 2_000 + Int64(n) * 1000)
            while let l = r.pop() { released.append(l) }
        }
        #expect(r.count <= 1_000 && r.held <= 1_000)
        #expect(r.overflowed)
        #expect(released.prefix(3) == [-2, -1, 0] && released == released.sorted(), "oldest first")
        var quiet = EventTimeReorder<Int>(window: 10_000, capacity: 1_000)
        for n in 0..<500 { quiet.push(n, source: "a", time: Int64(n) * 1000); quiet.push(n, source: "b", time: Int64(n) * 1000); _ = quiet.pop() }
        #expect(!quiet.overflowed, "under the bound nothing is released early")
    }

    @Test("a gateway's own lines never change order (a clock stepped back); its status comes after its earlier lines")
    func ownOrder() {
        var r = EventTimeReorder<String>(window: 60)
        r.push("a1@200", source: "a", time: 200)
        r.push("b@100", source: "b", time: 100)
        r.push("a2@150", source: "a", time: 150)
        r.push("a status", source: "a", time: nil)
        r.push("b@101", source: "b", time: 101)
        r.push("c@300", source: "c", time: 300)
        r.push("b@300", source: "b", time: 300)
        var out: [String] = []
        while let l = r.pop(flush: true) { out.append(l) }
        #expect(out == ["b@100", "b@101", "a1@200", "a2@150", "a status", "c@300", "b@300"])
    }

    /// Lines in the order a recording would hold them, the tag heard by `gw-c` only: all gateways
    /// live to 60 s; a broker outage to 360 s; then every edge but `gw-c` sends its backlog, one
    /// after another, and `gw-c` sends its own last; then all live to 400 s. In trace order the
    /// tag goes `unknown` while `gw-c` looks dead, or exits (DeploymentScenarioTests.outageReplay,
    /// the backlogs interleaved).
    static func outageTrace() -> [(String, [UInt8])] {
        var seq: [String: UInt64] = [:]
        var lines: [(String, [UInt8])] = []
        func batch(_ gw: String, _ s: Int64) {
            let store = gw == "gw-h" ? 2 : 1
            let sightings = gw == "gw-c" ? (0..<4).map {
                Sighting(device: Fixture.tag, time: s + Int64($0) * 250, rssi: -60)
            } : []
            let n = seq[gw, default: 0]
            seq[gw] = n + 1
            let b = SightingBatch(gateway: try! GatewayID(gw), sequence: n, sent: s + 1000, sightings: sightings)
            lines.append(("beaconnet/sightings/\(store)/\(gw)", b.encoded()))
        }
        let all = ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"]
        var s = t0
        while s < t0 + 60_000 { for gw in all { batch(gw, s) }; s += 1000 }
        for gw in all where gw != "gw-c" {
            var r = s
            while r < t0 + 360_000 { batch(gw, r); r += 1000 }
        }
        var r = s
        while r < t0 + 360_000 { batch("gw-c", r); r += 1000 }
        s = t0 + 360_000
        while s < t0 + 400_000 { for gw in all { batch(gw, s) }; s += 1000 }
        return lines
    }

    static func replay(_ lines: [(String, [UInt8])], reorder window: Int64?) throws -> [Outbound] {
        var p = MessageProcessor(chain: try Fixture.config { $0.exitRule = .timeout }.resolve(), scheme: .standard,
                                 aggregator: try AggregatorID("replay"))
        var out: [Outbound] = []
        guard let window else {
            for (topic, payload) in lines { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
            return out
        }
        var held = EventTimeReorder<(String, [UInt8])>(window: window)
        for line in lines {
            let key = p.orderingKey(topic: line.0, payload: line.1)
            held.push(line, source: key?.source, time: key?.time)
            while let (topic, payload) = held.pop() { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        }
        while let (topic, payload) = held.pop(flush: true) { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        return out
    }

    static func storeEvents(_ out: [Outbound]) -> [String] {
        out.map(\.topic).filter { $0.hasPrefix("beaconnet/events/1/") && $0.split(separator: "/").count == 4 }
    }

    @Test("a broker outage's backlogs, one edge after another: in trace order the last edge looks dead (its device goes unknown or exits); reordered, it stays inside")
    func outage() throws {
        let lines = Self.outageTrace()
        let plain = Self.upsets(try Self.replay(lines, reorder: nil))
        let reordered = try Self.replay(lines, reorder: 600_000)
        let short = Self.upsets(try Self.replay(lines, reorder: 120_000))
        #expect(!plain.isEmpty, "the limit --reorder is for (DeploymentScenarioTests.outageReplay)")
        #expect(Self.storeEvents(reordered) == ["beaconnet/events/1/enter"])
        #expect(Self.upsets(reordered).isEmpty)
        #expect(!short.isEmpty, "a window shorter than the outage cannot bridge it")
    }

    /// What the tag, inside all along, should never see: a store exit or an `unknown` state.
    static func upsets(_ out: [Outbound]) -> [String] {
        out.map(\.traceLine).filter {
            $0.hasPrefix("beaconnet/events/1/exit ") || ($0.hasPrefix("beaconnet/devices/") && $0.contains(#""state":"unknown""#))
        }
    }

    @Test("one gateway with a clock far ahead does not turn the reordering off for everyone else")
    func farAhead() throws {
        var lines = Self.outageTrace()
        let rogue = SightingBatch(gateway: try GatewayID("gw-h"), sequence: 10_000, sent: Self.t0 + 3_600_000, sightings: [])
        lines.insert(("beaconnet/sightings/2/gw-h", rogue.encoded()), at: 70 * 5)
        let out = try Self.replay(lines, reorder: 600_000)
        let clean = try Self.replay(Self.outageTrace(), reorder: 600_000).map(\.traceLine)
        // The rogue batch waits for the others and comes last (where, an hour ahead, the engine
        // then takes every other gateway for silent, as it would anywhere in a plain replay):
        // everything before it replays exactly as without it.
        #expect(Array(out.map(\.traceLine).prefix(clean.count)) == clean)
        let early = Self.upsets(out).filter { line in
            let json = line.split(separator: " ", maxSplits: 1).last.map { Data($0.utf8) } ?? Data()
            let object = (try? JSONSerialization.jsonObject(with: json)) as? [String: Any]
            let time = (object?["since"] as? NSNumber ?? object?["t"] as? NSNumber)?.int64Value ?? 0
            return time < Self.t0 + 3_000_000
        }
        #expect(early.isEmpty, "\(early.prefix(2))")
    }

    @Test("one batch far ahead from the gateway that hears the device: its later batches are not held behind it (the device stays inside); the glitch, coming last, moves nothing")
    func glitchAhead() throws {
        var lines = Self.outageTrace()
        // gw-c's 71st batch (seq 70, in sequence) stamped an hour ahead: the trace's line 350 is
        // in gw-a's backlog, so give it the next seq of gw-c after its live phase (60 batches) and
        // renumber gw-c's backlog after it.
        var seq: UInt64 = 0
        var glitchAt: Int?
        for (i, line) in lines.enumerated() where line.0 == "beaconnet/sightings/1/gw-c" {
            let batch = try SightingBatch.decode(line.1)
            if seq == 70 && glitchAt == nil { glitchAt = i }
            lines[i].1 = SightingBatch(gateway: batch.gateway, sequence: seq, sent: seq == 70 ? Self.t0 + 3_600_000 : batch.sent,
                                       sightings: batch.sightings).encoded()
            seq += 1
        }
        #expect(glitchAt != nil)
        let out = try Self.replay(lines, reorder: 600_000)
        #expect(Self.upsets(out).isEmpty, "\(Self.upsets(out).prefix(2))")
        #expect(Self.storeEvents(out) == ["beaconnet/events/1/enter"])
    }

    @Test("a gateway whose clock steps back keeps its batches in its own order: none is lost as a repeat")
    func clockStepsBack() throws {
        var lines: [(String, [UInt8])] = []
        for n in 0..<300 {
            // 100 s fast for the first 150 batches, then corrected (same edge run).
            let sent = Self.t0 + Int64(n) * 1000 + (n < 150 ? 100_000 : 0)
            let sightings = [Sighting(device: Fixture.tag, time: sent - 500, rssi: -60)]
            lines.append(("beaconnet/sightings/1/gw-a", SightingBatch(gateway: try GatewayID("gw-a"), sequence: UInt64(n), sent: sent, sightings: sightings, epoch: Self.t0).encoded()))
            let b = SightingBatch(gateway: try GatewayID("gw-b"), sequence: UInt64(n), sent: Self.t0 + Int64(n) * 1000, sightings: [], epoch: Self.t0)
            lines.append(("beaconnet/sightings/1/gw-b", b.encoded()))
        }
        var p = MessageProcessor(chain: try Fixture.config().resolve(), scheme: .standard, aggregator: try AggregatorID("replay"))
        var out: [Outbound] = []
        var held = EventTimeReorder<(String, [UInt8])>(window: 600_000)
        for line in lines {
            let key = p.orderingKey(topic: line.0, payload: line.1)
            held.push(line, source: key?.source, time: key?.time)
        }
        while let (topic, payload) = held.pop(flush: true) { p.handle(topic: topic, payload: payload, now: nil, into: &out) }
        #expect(p.engine.statistics.duplicateBatches == 0)
        #expect(p.counters.sightings == 300)
    }

    @Test("a trace already in event-time order replays the same with or without reordering")
    func inOrder() throws {
        let lines = ProcessorTests.validTraffic()
        let plain = try Self.replay(lines, reorder: nil)
        let reordered = try Self.replay(lines, reorder: 30_000)
        #expect(!plain.isEmpty)
        #expect(plain.map(\.traceLine) == reordered.map(\.traceLine))
    }

    @Test("a malformed line is still rejected, in its place among the others, and loses nothing around it")
    func malformed() throws {
        var lines = ProcessorTests.validTraffic()
        let valid = try Self.replay(lines, reorder: 30_000).map(\.traceLine)
        lines.insert(("beaconnet/sightings/1/gw-a", Array(#"{"v":1,"gw":"gw-a","seq":3,"#.utf8)), at: 7)
        lines.insert(("beaconnet/sightings/1/gw-zz", Array(#"{"v":1,"gw":"gw-zz","seq":1,"sent":1790000001000,"sightings":[]}"#.utf8)), at: 3)
        let out = try Self.replay(lines, reorder: 30_000).map(\.traceLine)
        #expect(out.filter { $0.hasPrefix("beaconnet/rejects/") }.count == 2)
        #expect(out.filter { !$0.hasPrefix("beaconnet/rejects/") } == valid)
    }

    @Test("beacon-aggregator replay --reorder: the outage trace from a file, its device inside throughout; a bad window is refused")
    func commandLine() async throws {
        let directory = try TestDirectory.make("replay-reorder")
        let chain = directory.appendingPathComponent("chain.json")
        try JSONEncoder().encode(Fixture.config { $0.exitRule = .timeout }).write(to: chain)
        let trace = directory.appendingPathComponent("trace.txt")
        var text = ""
        for (topic, payload) in Self.outageTrace() { text += topic + " " + String(decoding: payload, as: UTF8.self) + "\n" }
        try text.write(to: trace, atomically: false, encoding: .utf8)
        func replay(_ extra: [String]) async throws -> String {
            let result = try await CommandLineTests.run("beacon-aggregator", ["replay", "--config", chain.path, trace.path] + extra)
            #expect(result.status == 0, "\(result.output)")
            return result.output
        }
        let plain = try await replay([])
        let reordered = try await replay(["--reorder", "600"])
        func upsets(_ out: String) -> Int {
            out.split(separator: "\n").filter {
                $0.hasPrefix("beaconnet/events/1/exit ") || ($0.hasPrefix("beaconnet/devices/") && $0.contains(#""state":"unknown""#))
            }.count
        }
        #expect(upsets(plain) > 0)
        #expect(upsets(reordered) == 0, "\(reordered.prefix(2000))")
        #expect(reordered.contains("beaconnet/events/1/enter "))
        let bad = try await CommandLineTests.run("beacon-aggregator", ["replay", "--config", chain.path, "--reorder", "-1", trace.path])
        #expect(bad.status == 64 && bad.output.contains("--reorder"), "\(bad.output)")
    }
}
