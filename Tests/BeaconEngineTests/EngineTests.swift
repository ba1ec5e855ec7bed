import TestSupport
import Testing
import BeaconCore
@testable import BeaconEngine

@Suite("Engine rules")
struct EngineTests {
    let t0: Int64 = 1_790_000_000_000

    @Test("store entry needs the minimum evidence, then names the section")
    func entry() throws {
        var d = Driver(try Fixture.engine { $0.minSightingsToEnter = 3 })
        d.batch("gw-a", sent: t0 + 1000, [(Fixture.phone, t0 + 100, -60), (Fixture.phone, t0 + 200, -61)])
        #expect(d.transitions.isEmpty)
        d.batch("gw-a", sent: t0 + 2000, [(Fixture.phone, t0 + 1100, -60)])
        // Enough evidence; the entry waits for the store's other gateways to report that second.
        #expect(d.transitions.isEmpty)
        for gateway in ["gw-b", "gw-b2", "gw-c"] { d.batch(gateway, sent: t0 + 2000, []) }
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        #expect(d.transitionEvents.first?.time == t0 + 1100, "dated when the evidence sufficed")
        let state = try #require(d.states.last)
        #expect(state.state == .inside && state.section == d.engine.chain.sectionIndex(store: 1, section: 10))
    }

    @Test("a device standing between two sections does not flap", arguments: [Tuning.Rule.hysteresis, .hmm])
    func hysteresisAtBoundary(_ rule: Tuning.Rule) throws {
        var d = Driver(try Fixture.engine { $0.rule = rule })
        d.hear(Fixture.phone, ["gw-a": -62, "gw-b": -70], from: t0, to: t0 + 5000)
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        d.clear()
        // Ten minutes at the boundary: the two sections trade a 4 dB lead, under the margin.
        var t = t0 + 5000
        for i in 0..<600 {
            let lead = i % 2 == 0 ? 2 : -2
            d.hear(Fixture.phone, ["gw-a": -66 + lead, "gw-b": -66 - lead], from: t, to: t + 1000)
            t += 1000
        }
        #expect(d.transitions.isEmpty)
    }

    @Test("a challenger that keeps a clear lead wins after the dwell time, naming where it came from",
          arguments: [Tuning.Rule.hysteresis, .hmm])
    func sectionChange(_ rule: Tuning.Rule) throws {
        var d = Driver(try Fixture.engine { $0.dwellSeconds = 2; $0.switchMarginDB = 6; $0.processNoise = 9; $0.rule = rule })
        d.hear(Fixture.phone, ["gw-a": -60, "gw-b": -75], from: t0, to: t0 + 5000)
        d.clear()
        d.hear(Fixture.phone, ["gw-a": -75, "gw-b": -58], from: t0 + 5000, to: t0 + 12000)
        #expect(d.transitions == ["exit 1/10", "enter 1/20 from 10"])
        let enter = try #require(d.transitionEvents.last)
        // The filter needs a moment to cross, then the dwell: the switch lands 2–5 s after the change.
        #expect(enter.time >= t0 + 7000 && enter.time <= t0 + 10000)
        let exit = try #require(d.transitionEvents.first)
        #expect(exit.dwell == exit.time - (t0 + 250))
    }

    @Test("a lead over the margin that comes and goes wears away; a lead that stays moves the device, a bigger one sooner")
    func leadIsIntegrated() throws {
        // Margin 6 dB, dwell 1.5 s: a lead of 12 dB (twice the margin) moves the device after 1.5 s.
        var d = Driver(try Fixture.engine { $0.switchMarginDB = 6; $0.dwellSeconds = 1.5 })
        d.hear(Fixture.phone, ["gw-a": -60, "gw-b": -75], from: t0, to: t0 + 5000)
        d.clear()
        // A body turning round: 40 s in which 20 leads by 8 dB for 4 s at a time, then 10 leads
        // again. "8 dB over the 6 dB margin for the 1.5 s dwell" would move it; the sum of the
        // 2 dB excess never reaches 9 dB·s before 10's turn wears it away.
        var t = t0 + 5000
        for _ in 0..<8 {
            d.hear(Fixture.phone, ["gw-a": -66, "gw-b": -58], from: t, to: t + 4000)
            #expect(try leadState(d.engine, Fixture.phone).sum > 0)
            d.hear(Fixture.phone, ["gw-a": -58, "gw-b": -66], from: t + 4000, to: t + 8000)
            // Worn away, not just kept under the threshold.
            #expect(try leadState(d.engine, Fixture.phone).sum == 0)
            t += 8000
        }
        #expect(d.transitions.isEmpty, "\(d.transitions)")

        // A real move: 20 leads and keeps leading. The bigger the lead, the sooner the switch.
        func switchTime(lead: Int) throws -> Int64 {
            var e = d
            e.hear(Fixture.phone, ["gw-a": -66, "gw-b": -66 + lead], from: t, to: t + 8000)
            #expect(e.transitions == ["exit 1/10", "enter 1/20 from 10"], "lead \(lead): \(e.transitions)")
            return try #require(e.transitionEvents.last).time - t
        }
        let small = try switchTime(lead: 10), big = try switchTime(lead: 24)
        #expect(big < small, "lead 24 dB after \(big) ms, lead 10 dB after \(small) ms")
    }

    @Test("the lead sum: trapezoids between looks, a gap counted up to stale_after_s, floored at zero, a new challenger from zero, older looks ignored; a move needs the lead over the margin")
    func leadSumArithmetic() throws {
        // Dwell 10 s: the threshold is 6 dB × 10 s = 60 dB·s, out of reach until the last steps.
        var d = Driver(try Fixture.engine { $0.switchMarginDB = 6; $0.dwellSeconds = 10 })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        d.clear()
        let ti = try #require(d.engine.tracks.firstIndex { $0.id == Fixture.phone })
        let s10 = try #require(d.engine.chain.sectionIndex(store: 1, section: 10))
        let s20 = try #require(d.engine.chain.sectionIndex(store: 1, section: 20))
        let s30 = try #require(d.engine.chain.sectionIndex(store: 1, section: 30))
        let rule = LeadRule(chain: d.engine.chain)
        var state = try leadState(d.engine, Fixture.phone)
        var section = s10
        var t = t0 + 10_000
        /// One look: `top` leads the current section (10) by `lead` dB, or 10 is on top by -`lead`.
        func look(_ top: Int, _ lead: Double, after ms: Int64) -> Double {
            t += ms
            var e = SectionEvidence(store: 0, current: s10)
            let level = { (value: Double) in SectionEvidence.Level(value: value, variance: 0) }
            if top == s10 {
                e.strongest = (s10, level(-60), 0); e.inCurrent = level(-60); e.elsewhere = level(-60 + lead)
            } else {
                e.strongest = (top, level(-60 + lead), 0); e.inCurrent = level(-60); e.elsewhere = level(-60 + lead)
            }
            if let moved = rule.decide(&state, evidence: e, at: EventTime(t)).section { section = moved }
            return state.sum
        }
        #expect(look(s20, 10, after: 0) == 0)                 // a new challenger starts from zero
        #expect(look(s20, 14, after: 1000) == 6)              // ((10 + 14) / 2 − 6) × 1 s
        #expect(look(s20, 10, after: 10_000) == 30)           // + ((14 + 10) / 2 − 6) × 4 s, not 10 s
        #expect(look(s10, -2, after: 1000) == 28)             // 10 on top again: ((10 − 2) / 2 − 6) × 1 s
        t -= 3000
        #expect(look(s20, 18, after: 0) == 28)                // a look behind the last adds nothing
        t += 3000
        #expect(look(s30, 10, after: 1000) == 0)              // another challenger: from zero again
        #expect(look(s10, -18, after: 1000) == 0)             // worn down, floored at zero
        // 20 again: 48 + 24 = 72 ≥ 60, but the lead is back at the margin: no move until it is over it.
        #expect(look(s20, 18, after: 1000) == 0)
        #expect(look(s20, 18, after: 4000) == 48)
        #expect(look(s20, 6, after: 4000) == 72)
        #expect(section == s10)
        _ = look(s20, 7, after: 100)
        #expect(section == s20)
        _ = ti
    }

    @Test("a tag heard less often than a reading stays fresh still moves; without a dwell a lead must still beat the margin")
    func sparseTagAndNoDwell() throws {
        // One advert every 5 s (stale_after_s is 4): each look sees only the gateway that heard it.
        var d = Driver(try Fixture.engine { $0.switchMarginDB = 6; $0.dwellSeconds = 0.5 })
        func every5s(_ levels: [String: Int], from: Int64, count: Int) {
            for k in 0..<count {
                let s = from + Int64(k) * 5000
                for gw in ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"] {
                    d.batch(gw, sent: s + 1000, levels[gw].map { [(Fixture.phone, s, $0)] } ?? [])
                }
                d.silence(from: s + 1000, to: s + 5000)
            }
        }
        every5s(["gw-a": -60], from: t0, count: 3)
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        d.clear()
        every5s(["gw-b": -60], from: t0 + 15_000, count: 4)
        #expect(d.transitions == ["exit 1/10", "enter 1/20 from 10"], "\(d.transitions)")

        // Dwell 0: a challenger 4 dB ahead (under the 6 dB margin) never wins; 10 dB ahead wins at once.
        var e = Driver(try Fixture.engine { $0.switchMarginDB = 6; $0.dwellSeconds = 0 })
        e.hear(Fixture.phone, ["gw-a": -60, "gw-b": -75], from: t0, to: t0 + 5000)
        e.clear()
        e.hear(Fixture.phone, ["gw-a": -64, "gw-b": -60], from: t0 + 5000, to: t0 + 35_000)
        #expect(e.transitions.isEmpty, "\(e.transitions)")
        e.hear(Fixture.phone, ["gw-a": -70, "gw-b": -60], from: t0 + 35_000, to: t0 + 45_000)
        #expect(e.transitions == ["exit 1/10", "enter 1/20 from 10"], "\(e.transitions)")
    }

    @Test("a jump across the store needs a dwell per section in between")
    func adjacency() throws {
        var d = Driver(try Fixture.engine { $0.dwellSeconds = 2; $0.switchMarginDB = 6; $0.processNoise = 9 })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        d.clear()
        // Heard only in 30 (two hops from 10): one dwell is not enough, two are.
        d.hear(Fixture.phone, ["gw-c": -60, "gw-a": -80], from: t0 + 5000, to: t0 + 8000)
        #expect(d.transitions.isEmpty)
        d.hear(Fixture.phone, ["gw-c": -60, "gw-a": -80], from: t0 + 8000, to: t0 + 12000)
        #expect(d.transitions == ["exit 1/10", "enter 1/30 from 10"])
    }

    @Test("at dwell 0 a move to the next section is immediate, a jump across the store still takes time per section between")
    func adjacencyWithoutDwell() throws {
        // The defaults: dwell 0. Heard only in 20 (next to 10): it moves at the first look
        // that puts the lead over the margin.
        var next = Driver(try Fixture.engine { _ in })
        next.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        next.clear()
        next.hear(Fixture.phone, ["gw-b": -60, "gw-a": -85], from: t0 + 5000, to: t0 + 10_000)
        #expect(next.transitions == ["exit 1/10", "enter 1/20 from 10"])
        let moved = try #require(next.transitionEvents.last).time
        // Heard only in 30 (two hops from 10), the same lead: it moves too, but later, after the
        // lead has summed to margin × 0.25 s for the section between.
        var far = Driver(try Fixture.engine { _ in })
        far.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        far.clear()
        far.hear(Fixture.phone, ["gw-c": -60, "gw-a": -85], from: t0 + 5000, to: t0 + 10_000)
        #expect(far.transitions == ["exit 1/10", "enter 1/30 from 10"])
        #expect(try #require(far.transitionEvents.last).time > moved)
    }

    @Test("fixed exit timeout: exit after 30 s of silence, not before", arguments: [Tuning.ExitRule.timeout])
    func exitTimeout(_ rule: Tuning.ExitRule) throws {
        var d = Driver(try Fixture.engine { $0.exitRule = rule })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 10000)
        d.clear()
        d.silence(from: t0 + 10000, to: t0 + 40000)
        #expect(d.transitions.isEmpty)
        d.silence(from: t0 + 40000, to: t0 + 45000)
        #expect(d.transitions == ["exit 1/10", "exit 1"])
        let exit = try #require(d.transitionEvents.last)
        // Last sighting at t0+9750; 30 s later, seen through the 2 s watermark and 0.5 s sweeps.
        #expect(exit.time > t0 + 9750 + 30000 && exit.time <= t0 + 9750 + 31000)
        #expect(exit.dwell! > 39000)
        #expect(d.states.last?.state == .outside)
    }

    @Test("a device forgotten 10 min after leaving frees its track; the next device and the first one's return are told apart")
    func forgetAndReuse() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        #expect(d.engine.trackedDevices == 1)
        d.silence(from: t0 + 5000, to: t0 + 5000 + 11 * 60_000)
        #expect(d.transitions == ["enter 1", "enter 1/10", "exit 1/10", "exit 1"])
        #expect(d.engine.trackedDevices == 0 && d.engine.current(Fixture.phone) == nil)
        d.clear()
        // The tag takes the freed track; then the phone comes back, to another section.
        let t1 = t0 + 5000 + 11 * 60_000
        d.hear(Fixture.tag, ["gw-h": -60], from: t1, to: t1 + 5000)
        d.hear(Fixture.phone, ["gw-c": -60], from: t1 + 5000, to: t1 + 10000)
        #expect(d.engine.trackedDevices == 2)
        #expect(d.transitionEvents.map(\.device) == [Fixture.tag, Fixture.tag, Fixture.phone, Fixture.phone])
        #expect(d.transitions == ["enter 2", "enter 2/1", "enter 1", "enter 1/30"])
        let chain = d.engine.chain
        #expect(d.engine.current(Fixture.tag)?.section == chain.sectionIndex(store: 2, section: 1))
        #expect(d.engine.current(Fixture.phone)?.section == chain.sectionIndex(store: 1, section: 30))
    }

    @Test("a device heard by more gateways than it keeps links for keeps the strongest; a stale link makes room for any newcomer")
    func strongestLinksKept() throws {
        // Twelve gateways, gw-l0 strongest … gw-l11 weakest; the two strongest in section 10.
        let ids = (0..<12).map { "gw-l\($0)" }
        let config = ChainConfig(
            siteUUID: Fixture.uuid,
            stores: [.init(major: 1, name: "Main St", sections: [
                .init(minor: 10, name: "Entrance", adjacent: [20]),
                .init(minor: 20, name: "Grocery", adjacent: [10]),
            ])],
            gateways: ids.enumerated().map { .init(id: $1, store: 1, section: $0 < 2 ? 10 : 20) },
            tuning: Tuning())
        var d = Driver(AggregationEngine(chain: try config.resolve()))
        var levels: [String: Int] = [:]
        for (i, id) in ids.enumerated() { levels[id] = -50 - 3 * i }
        func linked() -> Set<String> {
            let ti = d.engine.devices.track(of: Fixture.phone)!
            return Set(d.engine.tracks[ti].links.map { d.engine.chain.gateways[Int($0.gateway)].id.rawValue })
        }
        // Strongest first in every second: keeping the most recently heard would keep the weakest 8.
        d.hear(Fixture.phone, levels, from: t0, to: t0 + 6000, heartbeat: ids)
        #expect(linked() == Set(ids[0..<DeviceTrack.maxLinks]))
        #expect(d.engine.current(Fixture.phone)?.section == d.engine.chain.sectionIndex(store: 1, section: 10))
        // The strong ones fall silent: past stale_after_s the weaker gateways take their links.
        d.hear(Fixture.phone, levels.filter { ids[8...].contains($0.key) }, from: t0 + 6000, to: t0 + 12000, heartbeat: ids)
        #expect(linked().isSuperset(of: Set(ids[8...])))
        #expect(d.engine.current(Fixture.phone)?.section == d.engine.chain.sectionIndex(store: 1, section: 20))
    }

    @Test("adaptive exit: a chatty device exits well before 30 s, never before exit_min_s")
    func adaptiveExit() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .adaptive; $0.exitMinSeconds = 6 })
        d.hear(Fixture.phone, ["gw-a": -60, "gw-b": -70], from: t0, to: t0 + 20000)
        d.clear()
        d.silence(from: t0 + 20000, to: t0 + 25000)
        #expect(d.transitions.isEmpty)
        d.silence(from: t0 + 25000, to: t0 + 40000)
        let exit = try #require(d.transitionEvents.last)
        #expect(d.transitions == ["exit 1/10", "exit 1"])
        #expect(exit.time >= t0 + 19750 + 6000 && exit.time < t0 + 19750 + 10000)
    }

    @Test("heard in another store after the first went quiet: exit one, enter the other")
    func storeChange() throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        d.clear()
        d.hear(Fixture.phone, ["gw-h": -60], from: t0 + 10000, to: t0 + 12000)
        #expect(d.transitions == ["exit 1/10", "exit 1", "enter 2", "enter 2/1"])
    }

    @Test("duplicated batches are ignored and gaps are counted as loss")
    func duplicatesAndLoss() throws {
        var d = Driver(try Fixture.engine())
        #expect(d.batch("gw-a", sent: t0 + 1000, [(Fixture.phone, t0 + 100, -60)], seq: 1) == .accepted)
        #expect(d.batch("gw-a", sent: t0 + 1000, [(Fixture.phone, t0 + 100, -60)], seq: 1) == .duplicate)
        #expect(d.transitions.isEmpty, "a duplicate must not count as a second sighting")
        #expect(d.batch("gw-a", sent: t0 + 4000, [], seq: 4) == .accepted)
        var counters = d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }!
        #expect(counters.lost == 2 && counters.duplicates == 1)
        // Seq 2 arrives late: accepted, no longer lost.
        #expect(d.batch("gw-a", sent: t0 + 2000, [], seq: 2) == .accepted)
        counters = d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }!
        #expect(counters.lost == 1)
        // An edge restart counts from 0 again with a later `sent`: accepted.
        #expect(d.batch("gw-a", sent: t0 + 9000, [], seq: 0) == .accepted)
    }

    @Test("resumed from a snapshot: redeliveries are duplicates, the first gap is a restart gap, later gaps are loss")
    func resumedGatewayProgress() throws {
        var d = Driver(try Fixture.engine())
        let gw = try GatewayID("gw-a")
        #expect(d.engine.resumeGateways([GatewayResumePoint(id: gw, seq: 10, sent: t0 + 10_000, epoch: nil), GatewayResumePoint(id: try GatewayID("gw-nowhere"), seq: 3, sent: t0, epoch: nil)]) == 1)
        // A QoS 1 redelivery of what the previous run processed.
        #expect(d.batch("gw-a", sent: t0 + 9000, [], seq: 9) == .duplicate)
        #expect(d.batch("gw-a", sent: t0 + 10_000, [], seq: 10) == .duplicate)
        // Seq 11–13 went with the previous process (processed after its snapshot, or lost).
        #expect(d.batch("gw-a", sent: t0 + 14_000, [], seq: 14) == .accepted)
        var counters = d.engine.gatewayCounters().first { $0.id == gw }!
        #expect(counters.restartGap == 3 && counters.lost == 0)
        #expect(d.batch("gw-a", sent: t0 + 17_000, [], seq: 17) == .accepted)
        counters = d.engine.gatewayCounters().first { $0.id == gw }!
        #expect(counters.restartGap == 3 && counters.lost == 2)
        #expect(d.engine.gatewayProgress().first { $0.id == gw }.map { [$0.seq] } == [17])

        // An edge that restarted while the aggregator was away counts from 0 again: no gap at all.
        var e = Driver(try Fixture.engine())
        e.engine.resumeGateways([GatewayResumePoint(id: gw, seq: 500, sent: t0 + 500_000, epoch: nil)])
        #expect(e.batch("gw-a", sent: t0 + 520_000, [], seq: 0) == .accepted)
        let restarted = e.engine.gatewayCounters().first { $0.id == gw }!
        #expect(restarted.restartGap == 0 && restarted.lost == 0)
    }

    @Test("an edge restarted within a second is told apart by its epoch: its batches are new, the old run's late ones still count")
    func edgeEpochs() throws {
        var d = Driver(try Fixture.engine())
        let first: Int64 = 1_700_000_000_000, second: Int64 = 1_700_000_007_500
        for seq in 0...7 { #expect(d.batch("gw-a", sent: t0 + Int64(seq) * 1000, [], seq: UInt64(seq), epoch: first) == .accepted) }
        // Restarted at once: seq 0 again, sent only 500 ms after the old run's last batch.
        #expect(d.batch("gw-a", sent: t0 + 7500, [(Fixture.phone, t0 + 7400, -60)], seq: 0, epoch: second) == .accepted)
        #expect(d.batch("gw-a", sent: t0 + 8500, [], seq: 1, epoch: second) == .accepted)
        #expect(d.batch("gw-a", sent: t0 + 8500, [], seq: 1, epoch: second) == .duplicate)
        // The old run's seq 5 redelivered by a bridge: a repeat; its missing seq 9 arriving late: new.
        #expect(d.batch("gw-a", sent: t0 + 5000, [], seq: 5, epoch: first) == .duplicate)
        #expect(d.batch("gw-a", sent: t0 + 8000, [], seq: 8, epoch: first) == .accepted)
        let counters = d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }!
        #expect(counters.lost == 0 && counters.duplicates == 2)
        #expect(d.engine.gatewayProgress().first?.epoch == second)

        // Without epochs the same restart is only a guess, and here it guesses wrong: the new run
        // is not taken for a restart. Its first batches reuse `seq`s already seen, but with another
        // `sent` they are no repeats and are still decided. This is why edges send an epoch.
        var old = Driver(try Fixture.engine())
        for seq in 0...7 { old.batch("gw-a", sent: t0 + Int64(seq) * 1000, [], seq: UInt64(seq)) }
        #expect(old.batch("gw-a", sent: t0 + 7500, [], seq: 0) == .accepted)
        #expect(old.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }?.seqAnomalies == 1)
    }

    @Test("a gateway clock that jumps back does not make a restarted edge's batches repeats")
    func epochGoingBack() throws {
        var d = Driver(try Fixture.engine())
        for seq in 0...3 { d.batch("gw-a", sent: t0 + Int64(seq) * 1000, [], seq: UInt64(seq), epoch: 2_000_000_000_000) }
        #expect(d.batch("gw-a", sent: t0 + 4000, [], seq: 0, epoch: 1_000_000_000_000) == .accepted)
        #expect(d.batch("gw-a", sent: t0 + 5000, [], seq: 1, epoch: 1_000_000_000_000) == .accepted)
        #expect(d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }!.lost == 0)
    }

    @Test("a batch arriving late within the lateness bound still prevents a false exit")
    func lateBatch() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout; $0.latenessSeconds = 3 })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        d.clear()
        // gw-b's batch for second 34 is delayed behind gw-a's heartbeat for second 36.
        d.silence(from: t0 + 5000, to: t0 + 34000)
        d.batch("gw-a", sent: t0 + 36000, [])
        d.batch("gw-b", sent: t0 + 35000, [(Fixture.phone, t0 + 34500, -64)])
        d.silence(from: t0 + 36000, to: t0 + 40000)
        #expect(!d.transitions.contains("exit 1"))
    }

    @Test("a gateway going offline makes its devices unknown, not exited; its return resolves it")
    func gatewayOffline() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.hear(Fixture.phone, ["gw-c": -60], from: t0, to: t0 + 5000, heartbeat: ["gw-c"])
        d.clear()
        var out: [EngineOutput] = []
        d.engine.gatewayStatus(try GatewayID("gw-c"), online: false, at: t0 + 5000, into: &out)
        d.outputs += out
        // Nothing else in the store is alive either: unknown for as long as it takes, never exit.
        d.silence(from: t0 + 5000, to: t0 + 120_000, gateways: ["gw-h"])
        #expect(d.transitions.isEmpty)
        #expect(d.states.last?.state == .unknown)
        d.clear()
        d.hear(Fixture.phone, ["gw-c": -61], from: t0 + 120_000, to: t0 + 123_000, heartbeat: ["gw-c"])
        #expect(d.transitions.isEmpty, "it never left: no enter event")
        #expect(d.states.first?.state == .inside)
    }

    @Test("a gateway back from an outage resolves its devices by what it hears: its silence counts from its return")
    func gatewayReturns() throws {
        for hearsIt in [true, false] {
            var d = Driver(try Fixture.engine())
            d.hear(Fixture.phone, ["gw-c": -60], from: t0 - 20000, to: t0 + 5000)
            var out: [EngineOutput] = []
            d.engine.gatewayStatus(try GatewayID("gw-c"), online: false, at: t0 + 5000, into: &out)
            d.outputs += out
            d.silence(from: t0 + 5000, to: t0 + 15000, gateways: ["gw-a", "gw-b", "gw-b2", "gw-h"])
            #expect(d.states.last?.state == .unknown)
            d.clear()
            d.engine.gatewayStatus(try GatewayID("gw-c"), online: true, at: t0 + 15000, into: &d.outputs)
            if hearsIt {
                d.hear(Fixture.phone, ["gw-c": -61], from: t0 + 15000, to: t0 + 20000)
                #expect(d.transitions.isEmpty, "it never left: no exit, no enter")
                #expect(d.states.first?.state == .inside)
            } else {
                d.silence(from: t0 + 15000, to: t0 + 60000)
                #expect(d.transitions == ["exit 1/30", "exit 1"])
                let exit = try #require(d.transitionEvents.first?.time)
                // Not at once (its silence from before the outage is not evidence), and at the
                // latest after the exit timeout (plus the watermark's lateness) from its return.
                #expect(exit >= t0 + 15000 + 6000 && exit <= t0 + 15000 + 32000, "exited \(exit - t0 - 15000) ms after the gateway came back")
            }
        }
    }

    @Test("restored inside while its store's gateways are all down: unknown, not exited")
    func restoredWhileStoreDown() throws {
        var d = Driver(try Fixture.engine())
        d.engine.restore([RestoredState(device: Fixture.phone, state: .inside, store: 1, section: 10, since: t0 - 60000, lastSeen: t0 - 1000, sequence: 41)])
        for gw in ["gw-a", "gw-b", "gw-b2", "gw-c"] { d.engine.gatewayStatus(try GatewayID(gw), online: false, at: t0, into: &d.outputs) }
        d.silence(from: t0, to: t0 + 120_000, gateways: ["gw-h"])
        #expect(d.transitions.isEmpty)
        #expect(d.states.last?.state == .unknown)
    }

    @Test("a clock moved past what the gateways have reported (the service's tick over a backlog) exits no one", arguments: [12_000, 40_000] as [Int64])
    func clockAheadOfBatches(_ ahead: Int64) throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60], from: t0 - 20000, to: t0 + 5000)
        d.clear()
        d.engine.advance(to: t0 + 5000 + ahead, into: &d.outputs)
        // The backlog of batches that were queued while the clock moved on.
        d.hear(Fixture.phone, ["gw-a": -60], from: t0 + 5000, to: t0 + 10000 + ahead)
        #expect(d.transitions.isEmpty)
        // Past the gateways' silence bound they may count as silent (unknown), never as listening.
        #expect(d.states.allSatisfy { $0.state != .outside })
        #expect(d.states.last.map { $0.state == .inside } ?? true)
    }

    @Test("a gateway whose clock runs ahead (up to what live mode accepts, 12 s) exits no one and silences no one", arguments: ["gw-h", "gw-c"])
    func fastGateway(_ fast: String) throws {
        var d = Driver(try Fixture.engine())
        var second = t0
        while second < t0 + 60000 {
            for gw in ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"] {
                let heard = gw == "gw-a" ? (0..<4).map { (Fixture.phone, second + Int64($0) * 250, -60) } : []
                d.batch(gw, sent: second + (gw == fast ? 12000 : 1000), heard)
            }
            second += 1000
        }
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        #expect(d.states.allSatisfy { $0.state == .inside })
    }

    @Test("draining after a recording (replay --drain) exits who is still inside; who only an offline gateway heard stays unknown")
    func drain() throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 20000)
        d.hear(Fixture.tag, ["gw-h": -60], from: t0, to: t0 + 20000)
        d.engine.gatewayStatus(try GatewayID("gw-h"), online: false, at: t0 + 20000, into: &d.outputs)
        d.clear()
        d.engine.drain(to: t0 + 80000, into: &d.outputs)
        #expect(d.transitions == ["exit 1/10", "exit 1"])
        #expect(d.states.map(\.device) == [Fixture.tag, Fixture.phone])
        #expect(d.states.first?.state == .unknown)
    }

    @Test("unknown resolves to exit once the rest of the store has listened for the whole exit timeout")
    func unknownResolvesToExit() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.hear(Fixture.phone, ["gw-c": -60], from: t0, to: t0 + 5000)
        var out: [EngineOutput] = []
        d.engine.gatewayStatus(try GatewayID("gw-c"), online: false, at: t0 + 5000, into: &out)
        d.outputs += out
        d.clear()
        d.silence(from: t0 + 5000, to: t0 + 60000, gateways: ["gw-a", "gw-b", "gw-b2", "gw-h"])
        #expect(d.states.first?.state == .unknown)
        #expect(d.transitions == ["exit 1/30", "exit 1"])
    }

    @Test("the same input gives the same output", arguments: Tuning.Rule.allCases)
    func deterministic(_ rule: Tuning.Rule) throws {
        func run() throws -> [EngineOutput] {
            var d = Driver(try Fixture.engine { $0.rule = rule })
            d.hear(Fixture.phone, ["gw-a": -60, "gw-b": -70], from: t0, to: t0 + 8000)
            d.hear(Fixture.tag, ["gw-c": -55], from: t0 + 2000, to: t0 + 9000)
            d.hear(Fixture.phone, ["gw-a": -75, "gw-b": -58], from: t0 + 8000, to: t0 + 15000)
            d.silence(from: t0 + 15000, to: t0 + 60000)
            return d.outputs
        }
        let first = try run()
        #expect(first.count > 10)
        #expect(try run() == first)
    }

    @Test("occupancy follows entries and exits, at most once a second per topic")
    func occupancy() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        d.hear(Fixture.tag, ["gw-a": -60], from: t0 + 5000, to: t0 + 8000)
        let counts = d.outputs.compactMap { o -> OccupancyCount? in if case .occupancy(let c) = o { return c } else { return nil } }
        let store = counts.filter { $0.section == nil }
        #expect(store.last?.count == 2)
        #expect(store.map(\.count) == [1, 2])
        // Stamped no earlier than the enter that changed it (the watermark lags by lateness_s).
        let enters = d.transitionEvents.filter { $0.kind == .enter && $0.section == nil }.map(\.time)
        #expect(zip(store, enters).allSatisfy { $0.time >= $1 }, "\(store.map(\.time)) against enters at \(enters)")
        d.silence(from: t0 + 8000, to: t0 + 50000)
        let last = d.outputs.compactMap { o -> OccupancyCount? in if case .occupancy(let c) = o, c.section == nil { return c } else { return nil } }.last
        #expect(last?.count == 0)
    }

    @Test("a restart restores who is inside and invents no enter event", arguments: [Tuning.Rule.hysteresis, .hmm])
    func restore(_ rule: Tuning.Rule) throws {
        var d = Driver(try Fixture.engine { $0.rule = rule })
        d.engine.restore([RestoredState(device: Fixture.phone, state: .inside, store: 1, section: 10, since: t0 - 60000, lastSeen: t0 - 1000, sequence: 41)])
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 10000)
        #expect(d.transitions.isEmpty)
        d.hear(Fixture.phone, ["gw-b": -55, "gw-a": -75], from: t0 + 10000, to: t0 + 16000)
        #expect(d.transitions == ["exit 1/10", "enter 1/20 from 10"])
        #expect(d.transitionEvents.first?.sequence == 42)
    }

    @Test("nearest-gateway baseline switches on every lead change")
    func nearestBaseline() throws {
        var d = Driver(try Fixture.engine { $0.rule = .nearest })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 3000)
        d.clear()
        var t = t0 + 3000
        for i in 0..<10 {
            let lead = i % 2 == 0 ? 2 : -2
            d.hear(Fixture.phone, ["gw-a": -66 + lead, "gw-b": -66 - lead], from: t, to: t + 1000)
            t += 1000
        }
        #expect(d.transitions.count >= 10, "the baseline flaps: that is why it is only a baseline")
    }
}

@Suite("Engine event quality")
struct EngineQualityTests {
    @Test("events at a section change describe the new section, with its confidence", arguments: [Tuning.Rule.hysteresis, .hmm])
    func confidenceOfNewSection(_ rule: Tuning.Rule) throws {
        let t0: Int64 = 1_790_000_000_000
        var d = Driver(try Fixture.engine { $0.rule = rule; $0.dwellSeconds = 1 })
        d.hear(Fixture.phone, ["gw-a": -55, "gw-b": -80], from: t0, to: t0 + 5000)
        d.clear()
        d.hear(Fixture.phone, ["gw-a": -80, "gw-b": -55], from: t0 + 5000, to: t0 + 15000)
        let enter = try #require(d.transitionEvents.first { $0.kind == .enter })
        #expect(enter.confidence > 0.5, "the new section leads clearly: confidence \(enter.confidence)")
        #expect(enter.proximity != .unknown && enter.accuracy != nil)
    }
}

extension EngineQualityTests {
    @Test("a store enter event carries the confidence of the section it lands in")
    func storeEnterConfidence() throws {
        let t0: Int64 = 1_790_000_000_000
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -55, "gw-b": -80], from: t0, to: t0 + 3000)
        let enter = try #require(d.transitionEvents.first)
        #expect(enter.section == nil && enter.confidence > 0.9)
    }
}

extension EngineQualityTests {
    @Test("interleaved batches never date a decision backwards: no negative dwell", arguments: Tuning.Rule.allCases)
    func noNegativeDwell(_ rule: Tuning.Rule) throws {
        let t0: Int64 = 1_790_000_000_000
        var d = Driver(try Fixture.engine { $0.rule = rule; $0.dwellSeconds = 0 })
        // gw-a's batches run a second ahead of gw-b's, and the lead flips at every report.
        for second in 0..<30 {
            let s = t0 + Int64(second) * 1000
            d.batch("gw-a", sent: s + 1000, (0..<4).map { (Fixture.phone, s + Int64($0) * 250, $0 % 2 == 0 ? -60 : -75) })
            d.batch("gw-b", sent: s, (0..<4).map { (Fixture.phone, s - 1000 + Int64($0) * 250 + 125, $0 % 2 == 0 ? -75 : -58) })
        }
        #expect(d.transitionEvents.count >= 2)
        for e in d.transitionEvents {
            #expect((e.dwell ?? 0) >= 0, "\(e.kind) \(e.section.map(String.init) ?? "store") dwell \(e.dwell ?? 0)")
        }
        let times = d.transitionEvents.map(\.time)
        #expect(times == times.sorted(), "decisions must not go back in time")
    }
}

/// The lead rule's memory of `device` in `engine` (the default rule).
func leadState(_ engine: AggregationEngine, _ device: DeviceID) throws -> LeadRule.DeviceState {
    let track = try #require(engine.devices.track(of: device))
    let slot = try #require(engine.sectionRule as? SectionRuleSlot<LeadRule>)
    return slot.state(of: track)
}

@Suite("Engine: moves between neighbouring stores")
struct StoreMoveTests {
    let t0: Int64 = 1_790_000_000_000

    @Test("a device still heard faintly by its store moves once the neighbour's gateway leads by over the margin long enough")
    func movesOnLead() throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60, "gw-h": -85], from: t0, to: t0 + 10_000)
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        d.clear()
        // Walked next door: store 1's gateway still hears it through the wall, 20 dB under gw-h.
        d.hear(Fixture.phone, ["gw-a": -80, "gw-h": -60], from: t0 + 10_000, to: t0 + 20_000)
        #expect(d.transitions == ["exit 1/10", "exit 1", "enter 2", "enter 2/1"])
        let moved = try #require(d.transitionEvents.first).time - (t0 + 10_000)
        #expect(moved < 5_000, "moved \(moved) ms after the walk, while store 1 still heard it")
    }

    @Test("a lead under the margin, however long, moves nobody between stores")
    func staysUnderMargin() throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60, "gw-h": -85], from: t0, to: t0 + 10_000)
        d.clear()
        d.hear(Fixture.phone, ["gw-a": -70, "gw-h": -63], from: t0 + 10_000, to: t0 + 120_000)
        #expect(d.transitions.isEmpty, "\(d.transitions)")
    }
}
