import BeaconCore
import BeaconWire
import TestSupport
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

/// How the engine learns each gateway's batch window and copes with its clock: each case would
/// otherwise leave a device stuck inside, flapping, or crash the engine.
@Suite("Engine: gateway windows and clocks")
struct GatewayWindowTests {
    let t0: Int64 = 1_790_000_000_000

    /// gw-h (store 2's only gateway) sends batches at `sents`; the tag is heard 4/s until `tagUntil`.
    func runH(_ sents: [Int64], tagUntil: Int64, rule: Tuning.Rule = .hysteresis, epoch: Int64? = nil) throws -> Driver {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout; $0.rule = rule })
        var prev = sents[0] - 1000
        for s in sents {
            let obs = stride(from: prev, to: min(s, tagUntil), by: 250).map { (Fixture.tag, $0, -60) }
            d.batch("gw-h", sent: s, obs, epoch: epoch)
            prev = s
        }
        return d
    }

    func describe(_ d: Driver) -> String {
        let st = d.states.map { "\($0.state)@\(($0.since - t0) / 1000)" }
        let tr = d.transitionEvents.map { "\($0.kind)@\(($0.time - t0) / 1000)" }
        return "transitions \(tr) states \(st.prefix(12))… (\(st.count) states)"
    }

    // The first two batches of a run are a split window with a short remainder (a 50 ms first step).
    @Test("a run whose first two batches are a split window (a tiny first step) still learns its 10 s window: the device exits", arguments: Tuning.Rule.allCases)
    func firstStepSplit(_ rule: Tuning.Rule) throws {
        var sents: [Int64] = [t0 + 9_950, t0 + 10_000]
        var s = t0 + 20_000
        while s <= t0 + 600_000 { sents.append(s); s += 10_000 }
        let d = try runH(sents, tagUntil: t0 + 60_000, rule: rule, epoch: t0)
        #expect(d.transitions.contains("exit 2"), "\(rule): \(describe(d))")
    }

    // Busy period: 10 s window split 5 ways (3000 sightings every 2 s), then quiet 10 s windows.
    @Test("a busy spell of windows split five ways, then quiet 10 s windows: the device exits", arguments: Tuning.Rule.allCases)
    func busyThenQuiet(_ rule: Tuning.Rule) throws {
        var sents: [Int64] = []
        var w = t0
        while w < t0 + 120_000 { for k in 1...5 { sents.append(w + Int64(k) * 2000 - (k == 5 ? 0 : 1)) }; w += 10_000 }
        while w < t0 + 720_000 { sents.append(w + 10_000); w += 10_000 }
        let d = try runH(sents, tagUntil: t0 + 150_000, rule: rule, epoch: t0)
        #expect(d.transitions.contains("exit 2"), "\(rule): \(describe(d))")
    }

    // 60 s window (the edge's maximum) with 6 splits per window during a rush, then quiet.
    @Test("a 60 s window split six ways in a rush, then quiet: the device exits, at most one unknown spell, since never goes back", arguments: Tuning.Rule.allCases)
    func longWindowRush(_ rule: Tuning.Rule) throws {
        var sents: [Int64] = []
        var w = t0
        while w < t0 + 600_000 { for k in 1...6 { sents.append(w + Int64(k) * 10_000 - (k == 6 ? 0 : 1)) }; w += 60_000 }
        while w < t0 + 1_800_000 { sents.append(w + 60_000); w += 60_000 }
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout; $0.rule = rule })
        var prev = t0, hb = t0
        for s in sents {
            while hb + 1000 <= s { hb += 1000; for g in ["gw-a", "gw-b", "gw-b2", "gw-c"] { d.batch(g, sent: hb, []) } }
            d.batch("gw-h", sent: s, stride(from: prev, to: min(s, t0 + 900_000), by: 250).map { (Fixture.tag, $0, -60) }, epoch: t0)
            prev = s
        }
        #expect(d.transitions.contains("exit 2"), "\(rule): \(describe(d))")
        // The first 60 s gap after a rush of 10 s steps is longer than three known windows: one
        // unknown spell while the window is relearnt, then none.
        #expect(d.states.filter { $0.state == .unknown }.count <= 1, "\(rule): \(describe(d))")
        #expect(d.states.map(\.since) == d.states.map(\.since).sorted(), "since never goes back: \(describe(d))")
    }

    // The window grows fivefold without a restart (no epoch, a spill-continued count).
    @Test("a window that grows from 1 s to 5 s without a restart (an edge without epochs) is learnt: the device exits")
    func windowGrows() throws {
        var sents: [Int64] = []
        var s = t0
        while s < t0 + 60_000 { s += 1000; sents.append(s) }
        while s < t0 + 600_000 { s += 5000; sents.append(s) }
        let d = try runH(sents, tagUntil: t0 + 90_000)
        #expect(d.transitions.contains("exit 2"), "\(describe(d))")
    }

    // A first step of an hour (the edge paused after its first batch), then the gateway dies.
    @Test("a first step of an hour (an edge paused) does not keep a dead gateway online for hours: windows are at most a minute")
    func hugeFirstStep() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.batch("gw-h", sent: t0, [], epoch: t0)
        d.batch("gw-h", sent: t0 + 3_600_000, [(Fixture.tag, t0 + 3_599_000, -60), (Fixture.tag, t0 + 3_599_500, -60)], epoch: t0)
        var s = t0 + 3_600_000
        for _ in 0..<5 { s += 1000; d.batch("gw-h", sent: s, [(Fixture.tag, s - 500, -60)], epoch: t0) }
        // gw-h dies without a Last Will; store 1's gateways go on.
        d.clear()
        d.silence(from: s, to: s + 600_000, gateways: ["gw-a", "gw-b", "gw-b2", "gw-c"])
        #expect(d.states.contains { $0.state == .unknown }, "expected unknown 15 s after gw-h died: \(describe(d))")
    }

    // A gateway whose clock is 20 s behind (or a bridge delaying it 20 s).
    @Test("a gateway whose clock is 20 s behind is alive while its batches come: no inside/unknown flapping", arguments: Tuning.Rule.allCases)
    func behindClock(_ rule: Tuning.Rule) throws {
        var d = Driver(try Fixture.engine { $0.rule = rule })
        var s = t0
        while s < t0 + 60_000 {
            d.batch("gw-h", sent: s + 1000 - 20_000, (0..<4).map { (Fixture.tag, s - 20_000 + Int64($0) * 250, -60) })
            for g in ["gw-a", "gw-b", "gw-b2", "gw-c"] { d.batch(g, sent: s + 1000, []) }
            s += 1000
        }
        // It keeps sending, so it is alive though its clock lags the chain's: at most one unknown
        // spell at the start (the chain's time jumps 20 s past its first batch), no 1 Hz flapping.
        #expect(d.states.count <= 3, "\(rule): \(describe(d))")
    }

    // The tick, when the last accepted batch was a late one (lag 10 min).
    @Test("the tick after one late batch (a spill file emptying) still notices gateways gone silent")
    func tickLag() throws {
        var p = MessageProcessor(chain: try Fixture.config().resolve(), scheme: .standard, aggregator: try AggregatorID("agg-test"))
        var out: [Outbound] = []
        var now = t0
        var seq = 0
        while now < t0 + 20_000 {
            let sightings = (0..<4).map { #"{"dev":"mac-AA:BB:CC:DD:EE:01","t":\#(now - 1000 + Int64($0) * 250),"rssi":-60}"# }.joined(separator: ",")
            let b = Array(#"{"v":1,"gw":"gw-h","seq":\#(seq),"sent":\#(now),"sightings":[\#(sightings)]}"#.utf8)
            #expect(p.handle(topic: "beaconnet/sightings/2/gw-h", payload: b, now: now + 100, into: &out) == .accepted)
            seq += 1
            p.tick(now: now + 100, connected: true, into: &out)
            now += 1000
        }
        // One late batch from another gateway (a spill file emptying): sent 10 min ago.
        let late = Array(#"{"v":1,"gw":"gw-a","seq":0,"sent":\#(now - 600_000),"sightings":[]}"#.utf8)
        #expect(p.handle(topic: "beaconnet/sightings/1/gw-a", payload: late, now: now, into: &out) == .accepted)
        out.removeAll()
        // Then nothing arrives (every edge's uplink down, the aggregator still connected) for 5 min.
        while now < t0 + 320_000 { p.tick(now: now, connected: true, into: &out); now += 500 }
        let lines = out.map(\.traceLine)
        #expect(lines.contains { $0.contains(#""state":"unknown""#) }, "device should be unknown: \(lines)")
    }
}

extension GatewayWindowTests {
    // A bridge that swaps every pair of batches (10 s window).
    @Test("batches swapped in pairs on the way (a 10 s window): the window is learnt, the device exits")
    func reordered() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        var n: UInt64 = 0
        while n < 60 {
            for k in [n + 1, n] {
                let sent = t0 + Int64(k + 1) * 10_000
                let obs = sent <= t0 + 60_000 ? stride(from: sent - 10_000, to: sent, by: 250).map { (Fixture.tag, $0, -60) } : []
                d.batch("gw-h", sent: sent, obs, seq: k, epoch: t0)
            }
            n += 2
        }
        #expect(d.transitions.contains("exit 2"), "\(describe(d))")
    }

    // Control: splits with the same sent (step 0) are harmless.
    @Test("splits sent with the same time are harmless: the device exits")
    func sameSentSplits() throws {
        var sents: [Int64] = []
        var w = t0
        while w < t0 + 120_000 { for _ in 0..<5 { sents.append(w + 10_000) }; w += 10_000 }
        while w < t0 + 600_000 { sents.append(w + 10_000); w += 10_000 }
        let d = try runH(sents, tagUntil: t0 + 100_000, epoch: t0)
        #expect(d.transitions.contains("exit 2"), "\(describe(d))")
    }
}

@Suite("Engine: counters under crafted sequences")
struct SequenceCounterTests {
    @Test("a crafted stream of restarts with extreme seq values counts no loss, only anomalies, and overflows nothing")
    func lostOverflow() throws {
        var d = Driver(try Fixture.engine())
        let t0: Int64 = 1_790_000_000_000
        let top: UInt64 = (1 << 53) - 1
        for k in 0..<2100 {
            d.batch("gw-h", sent: t0 + Int64(k) * 10, [], seq: 0, epoch: t0 + Int64(k))
            d.batch("gw-h", sent: t0 + Int64(k) * 10 + 1, [], seq: top, epoch: t0 + Int64(k))
        }
        let gh = d.engine.gateways[d.engine.chain.gatewayIndex[try GatewayID("gw-h")]!]
        // Each jump to 2^53 − 1 is far beyond what 1 ms of `sent` allows an edge to drop.
        #expect(gh.lost == 0 && gh.seqAnomalies == 2100)
    }
}
