import BeaconCore
import Testing
@testable import BeaconAggregator

/// Deployment scenarios from a review of the silence rules: a broker outage with a staggered
/// reconnect (a known limit, below), a gateway clock far behind, a crash-looping edge, and a
/// buffer of old sightings arriving after the device left.
@Suite("Engine: outages, restarts and clocks in deployment")
struct DeploymentScenarioTests {
    let t0: Int64 = 1_790_000_000_000
    let all = ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"]

    /// Not solved yet: after a chain-wide broker outage, the first edges back replay minutes of
    /// backlog in a second, event time races past the edges not back yet, and those count as down,
    /// so devices only they hear exit (and re-enter when their backlog comes). The README lists it.
    static let outageLimit: Comment = "a broker outage with a staggered reconnect exits devices the late edges hear"

    func exitsOf(_ d: Driver, _ dev: DeviceID) -> [String] {
        d.transitionEvents.filter { $0.device == dev && $0.section == nil }.map { "\($0.kind) @\(($0.time - t0) / 1000)s" }
    }

    /// Broker outage 60..360 s; every edge buffers; after the broker returns, edges reconnect in
    /// a different order (backoff up to 10 s) and replay their backlog oldest first.
    /// `late` replays last. D is heard every second by `hearers` throughout.
    func brokerOutage(hearers: [String], late: [String]) throws -> Driver {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        func batchAt(_ gw: String, _ s: Int64) {
            let heard = hearers.contains(gw) ? (0..<4).map { (Fixture.tag, s + Int64($0) * 250, -60) } : []
            d.batch(gw, sent: s + 1000, heard)
        }
        var s = t0
        while s < t0 + 60_000 { for gw in all { batchAt(gw, s) }; s += 1000 }
        let outageEnd = t0 + 360_000
        // early reconnecters replay their whole backlog (interleaved among themselves)
        let early = all.filter { !late.contains($0) }
        var r = s
        while r < outageEnd { for gw in early { batchAt(gw, r) }; r += 1000 }
        // then the late ones
        r = s
        while r < outageEnd { for gw in late { batchAt(gw, r) }; r += 1000 }
        // and live for a minute more
        while r < outageEnd + 60_000 { for gw in all { batchAt(gw, r) }; r += 1000 }
        return d
    }

    @Test("broker outage, staggered reconnect: device only gw-c hears")
    func outageDeaf() throws {
        let d = try brokerOutage(hearers: ["gw-c"], late: ["gw-c"])
        withKnownIssue(Self.outageLimit) { #expect(exitsOf(d, Fixture.tag) == ["enter @0s"]) }
    }

    @Test("broker outage, staggered reconnect: device gw-b and gw-b2 hear")
    func outageDeaf2() throws {
        let d = try brokerOutage(hearers: ["gw-b", "gw-b2"], late: ["gw-b", "gw-b2"])
        withKnownIssue(Self.outageLimit) { #expect(exitsOf(d, Fixture.tag) == ["enter @0s"]) }
    }

    @Test("broker outage, staggered reconnect: device heard by gw-a and gw-c, gw-c late")
    func outageListening() throws {
        // gw-a hears it until 60 s only (it moved to section 30 during the outage); gw-c hears throughout
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        func batchAt(_ gw: String, _ s: Int64) {
            let heard = (gw == "gw-c" || (gw == "gw-a" && s < t0 + 60_000)) ? (0..<4).map { (Fixture.tag, s + Int64($0) * 250, -60) } : []
            d.batch(gw, sent: s + 1000, heard)
        }
        var s = t0
        while s < t0 + 60_000 { for gw in all { batchAt(gw, s) }; s += 1000 }
        var r = s
        while r < t0 + 360_000 { for gw in all where gw != "gw-c" { batchAt(gw, r) }; r += 1000 }
        r = s
        while r < t0 + 360_000 { batchAt("gw-c", r); r += 1000 }
        while r < t0 + 420_000 { for gw in all { batchAt(gw, r) }; r += 1000 }
        withKnownIssue(Self.outageLimit) { #expect(exitsOf(d, Fixture.tag) == ["enter @0s"]) }
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
        #expect(exitsOf(d, Fixture.tag) == ["enter @0s", "exit @90s"])
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
            if s == t0 + 55_000 { d.engine.gatewayStatus(try GatewayID("gw-a"), online: false, at: s, into: &d.outputs) }
            if s == t0 + 200_000 { d.engine.gatewayStatus(try GatewayID("gw-a"), online: true, at: s, into: &d.outputs) }
            d.batch("gw-b", sent: s + 1000, heard)
            for gw in ["gw-b2", "gw-c", "gw-h"] { d.batch(gw, sent: s + 1000, []) }
            s += 1000
        }
        #expect(exitsOf(d, Fixture.tag).count == 2, "\(exitsOf(d, Fixture.tag))")
    }
}
