import BeaconCore
import TestSupport
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

/// Deployment scenarios for the silence rules: a broker outage with a staggered
/// reconnect, a gateway clock far behind, a crash-looping edge, and a buffer of old sightings
/// arriving after the device left.
@Suite("Engine: outages, restarts and clocks in deployment")
struct DeploymentScenarioTests {
    let t0: Int64 = 1_790_000_000_000
    let all = ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"]

    func exitsOf(_ d: Driver, _ dev: DeviceID) -> [String] {
        d.transitionEvents.filter { $0.device == dev && $0.section == nil }.map { "\($0.kind) @\(($0.time - t0) / 1000)s" }
    }

    /// A broker outage from 60 s to 360 s, the aggregator disconnected too (its arrival clock
    /// stops). Every edge buffers; after the broker returns the early edges replay their backlog at
    /// once and go live, while the `late` ones replay theirs `rate` batches a second from `delay`
    /// ms after the reconnection (their back-off), interleaved with the others' live traffic.
    /// `heard(gw, s)` says whether `gw` hears the tag in the second from `s`. Live mode: each
    /// batch carries its arrival on the aggregator's connected clock, and the reconnection is noted.
    func outage(late: [String], rate: Int = 1000, delay: Int64 = 10_000, heard: (String, Int64) -> Bool) throws -> Driver {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        let stop = t0 + 60_000, back = t0 + 360_000
        var clock = t0
        func batchAt(_ gw: String, _ s: Int64) {
            let sightings = heard(gw, s) ? (0..<4).map { (Fixture.tag, s + Int64($0) * 250, -60) } : []
            clock += 1
            d.batch(gw, sent: s + 1000, sightings, arrival: clock)
        }
        var s = t0
        while s < stop {
            clock = s + 1000
            for gw in all { batchAt(gw, s) }
            s += 1000
        }
        d.engine.noteReconnect(arrival: clock)
        let early = all.filter { !late.contains($0) }
        var r = s
        while r < back { for gw in early { batchAt(gw, r) }; r += 1000 }
        var lateNext = s, live = back, wall: Int64 = 0
        while live < back + 120_000 {
            clock += 1000
            wall += 1000
            for gw in early { batchAt(gw, live) }
            if wall > delay {
                var n = 0
                while n < rate && lateNext <= live {
                    for gw in late { batchAt(gw, lateNext) }
                    lateNext += 1000
                    n += 1
                }
            }
            live += 1000
        }
        return d
    }

    @Test("broker outage, staggered reconnect: a device only the last edge back hears stays inside")
    func outageDeaf() throws {
        let d = try outage(late: ["gw-c"]) { gw, _ in gw == "gw-c" }
        #expect(exitsOf(d, Fixture.tag) == ["enter @0s"])
    }

    @Test("broker outage, staggered reconnect: a device two late edges hear stays inside")
    func outageDeaf2() throws {
        let d = try outage(late: ["gw-b", "gw-b2"]) { gw, _ in gw == "gw-b" || gw == "gw-b2" }
        #expect(exitsOf(d, Fixture.tag) == ["enter @0s"])
    }

    @Test("broker outage, staggered reconnect: a device that moved to the late edge's section during the outage stays inside")
    func outageListening() throws {
        let d = try outage(late: ["gw-c"]) { gw, s in gw == "gw-c" || (gw == "gw-a" && s < t0 + 60_000) }
        #expect(exitsOf(d, Fixture.tag) == ["enter @0s"])
    }

    @Test("broker outage: the late edge replays its backlog among the others' live traffic, up to 16 s late; no exit",
          arguments: [(20, 5_000), (50, 5_000), (20, 12_000), (5, 5_000), (20, 16_000)] as [(Int, Int64)])
    func outageInterleavedReplay(_ rate: Int, _ delay: Int64) throws {
        let moved = try outage(late: ["gw-c"], rate: rate, delay: delay) { gw, s in
            (gw == "gw-a" && s < t0 + 100_000) || (gw == "gw-c" && s >= t0 + 100_000)
        }
        #expect(exitsOf(moved, Fixture.tag) == ["enter @0s"], "moved into the late edge's section")
        let only = try outage(late: ["gw-c"], rate: rate, delay: delay) { gw, _ in gw == "gw-c" }
        #expect(exitsOf(only, Fixture.tag) == ["enter @0s"], "heard by the late edge only")
    }

    @Test("broker outage: an edge that died during it (no Last Will) is awaited for a while, then its devices exit, dated back")
    func diedDuringOutage() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        var clock = t0, s = t0
        while s < t0 + 60_000 {
            clock = s + 1000
            for gw in all { clock += 1; d.batch(gw, sent: s + 1000, gw == "gw-b" && s < t0 + 50_000 ? [(Fixture.tag, s, -60)] : [], arrival: clock) }
            s += 1000
        }
        d.engine.noteReconnect(arrival: clock)
        var r = s
        while r < t0 + 460_000 {
            if r >= t0 + 360_000 { clock += 1000 }
            for gw in all where gw != "gw-c" { clock += 1; d.batch(gw, sent: r + 1000, [], arrival: clock) }
            r += 1000
        }
        let events = d.transitionEvents.filter { $0.device == Fixture.tag && $0.section == nil }
        #expect(events.map(\.kind) == [.enter, .exit])
        // Last heard just before 50 s: the exit is dated by the recorded silence, not by the wait.
        #expect(events.last.map { $0.time < t0 + 90_000 } == true, "\(exitsOf(d, Fixture.tag))")
    }

    @Test("a connection that keeps flapping does not make a gateway dead before it awaited forever")
    func flappingConnection() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        var s = t0
        while s < t0 + 200_000 {
            for (k, gw) in all.enumerated() where gw != "gw-c" || s < t0 + 10_000 {
                d.batch(gw, sent: s + 1000, gw == "gw-a" && s < t0 + 60_000 ? [(Fixture.tag, s, -60)] : [], arrival: s + 1000 + Int64(k))
            }
            if (s - t0) % 30_000 == 0 && s > t0 { d.engine.noteReconnect(arrival: s + 1000) }
            s += 1000
        }
        let events = d.transitionEvents.filter { $0.device == Fixture.tag && $0.section == nil }
        #expect(events.map(\.kind) == [.enter, .exit], "\(exitsOf(d, Fixture.tag))")
    }

    @Test("broker outage, in a replay (no arrival clock): the late edge counts as down — the limit live mode avoids")
    func outageReplay() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        func batchAt(_ gw: String, _ s: Int64) {
            d.batch(gw, sent: s + 1000, gw == "gw-c" ? (0..<4).map { (Fixture.tag, s + Int64($0) * 250, -60) } : [])
        }
        var s = t0
        while s < t0 + 60_000 { for gw in all { batchAt(gw, s) }; s += 1000 }
        var r = s
        while r < t0 + 360_000 { for gw in all where gw != "gw-c" { batchAt(gw, r) }; r += 1000 }
        r = s
        while r < t0 + 360_000 { batchAt("gw-c", r); r += 1000 }
        withKnownIssue("a replayed trace has no arrival clock: an edge whose backlog comes last looks down (replay --reorder bridges it: ReplayReorderTests)") {
            #expect(exitsOf(d, Fixture.tag) == ["enter @0s"])
        }
    }

    /// A gateway whose clock is far behind (fake-hwclock before NTP).
    @Test("a gateway clock 10 min or an hour behind holds no exit of its store (only devices it hears itself)", arguments: [600_000, 3_600_000] as [Int64])
    func clockBehind(_ behind: Int64) throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        var s = t0
        while s < t0 + 600_000 {
            let heard = s < t0 + 60_000 ? (0..<4).map { (Fixture.tag, s + Int64($0) * 250, -60) } : []
            d.batch("gw-a", sent: s + 1000, heard)
            for gw in ["gw-b", "gw-b2", "gw-h"] { d.batch(gw, sent: s + 1000, []) }
            d.batch("gw-c", sent: s + 1000 - behind, [])
            s += 1000
        }
        let events = exitsOf(d, Fixture.tag)
        #expect(events.count == 2 && events.last.map { $0.hasPrefix("exit") } == true, "\(events)")
    }

    @Test("an edge restarted every 20 s (down 2 s) does not keep the devices it heard inside")
    func crashLoop() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        var s = t0, epoch = t0, seqA: UInt64 = 0
        while s < t0 + 600_000 {
            let heard = s < t0 + 60_000 ? (0..<4).map { (Fixture.tag, s + Int64($0) * 250, -60) } : []
            let phase = (s - t0) % 20_000
            if phase >= 18_000 { } else {
                if phase == 0 && s > t0 + 60_000 { epoch = s; seqA = 0 }
                d.batch("gw-a", sent: s + 1000, heard, seq: seqA, epoch: epoch); seqA += 1
            }
            d.batch("gw-b", sent: s + 1000, heard)
            for gw in ["gw-b2", "gw-c", "gw-h"] { d.batch(gw, sent: s + 1000, []) }
            s += 1000
        }
        let events = d.transitionEvents.filter { $0.device == Fixture.tag && $0.section == nil }
        #expect(events.map(\.kind) == [.enter, .exit])
        // Last heard at 60 s; the fixed 30 s timeout, the lateness and a sweep's delay.
        #expect(events.last.map { ($0.time - t0) / 1000 }.map { (88...93).contains($0) } == true, "\(exitsOf(d, Fixture.tag))")
    }

    @Test("a gateway back from a Last Will replaying its buffer does not re-enter a device that left")
    func staleBacklogReenters() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        var backlog: [Int64] = []
        var s = t0
        while s < t0 + 300_000 {
            let heard = s < t0 + 60_000 ? (0..<4).map { (Fixture.tag, s + Int64($0) * 250, -60) } : []
            if s < t0 + 40_000 || s >= t0 + 200_000 {
                for b in backlog { d.batch("gw-a", sent: b + 1000, b < t0 + 60_000 ? (0..<4).map { (Fixture.tag, b + Int64($0) * 250, -60) } : []) }
                backlog = []
                d.batch("gw-a", sent: s + 1000, heard)
            } else { backlog.append(s) }
            if s == t0 + 55_000 { d.engine.gatewayStatus(try GatewayID("gw-a"), online: false) }
            if s == t0 + 200_000 { d.engine.gatewayStatus(try GatewayID("gw-a"), online: true) }
            d.batch("gw-b", sent: s + 1000, heard)
            for gw in ["gw-b2", "gw-c", "gw-h"] { d.batch(gw, sent: s + 1000, []) }
            s += 1000
        }
        #expect(exitsOf(d, Fixture.tag).count == 2, "\(exitsOf(d, Fixture.tag))")
    }

    /// A restored device whose section's gateway has not delivered by the first sweep must not go
    /// `unknown` and straight back to `inside` (a state blip every consumer would see). Live
    /// (arrival clock) and replayed.
    @Test("after a restart, a device restored in the section of a gateway not heard from yet stays inside (no unknown blip)",
          arguments: [true, false])
    func restoredBeforeItsGatewayReports(_ live: Bool) throws {
        var d = Driver(try Fixture.engine())
        d.engine.restore([RestoredState(device: Fixture.phone, state: .inside, store: 1, section: 30, since: t0 - 60_000, lastSeen: t0 - 1000, sequence: 41)])
        // Batch windows of 1 s, each gateway at its own phase; gw-c (section 30) comes last.
        let phases: [(String, Int64)] = [("gw-a", 0), ("gw-b", 250), ("gw-b2", 500), ("gw-h", 600), ("gw-c", 750)]
        var s = t0
        while s < t0 + 40_000 {
            for (gw, phase) in phases {
                let heard = gw == "gw-c" ? (0..<4).map { (Fixture.phone, s + phase - 1000 + Int64($0) * 250, -60) } : []
                d.batch(gw, sent: s + phase, heard, arrival: live ? s + phase + 5 : nil)
            }
            s += 1000
        }
        #expect(d.states.map(\.state).allSatisfy { $0 == .inside }, "\(d.states.map(\.state))")
        #expect(d.transitions.isEmpty, "\(d.transitions)")
    }
}
