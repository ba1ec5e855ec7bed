import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// How the section rules decide: the evidence to enter, a challenger's lead summed over time
/// against the margin and the dwell, adjacency, and the baseline that flaps.
@Suite("Engine: section decisions")
struct SectionDecisionTests {
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
            #expect(try leadState(d.engine, Fixture.phone).lead.sum.value > 0)
            d.hear(Fixture.phone, ["gw-a": -58, "gw-b": -66], from: t + 4000, to: t + 8000)
            // Worn away, not just kept under the threshold.
            #expect(try leadState(d.engine, Fixture.phone).lead.sum.value == 0)
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
        let ti = try #require(d.engine.devices.track(of: Fixture.phone))
        let s10 = try #require(d.engine.chain.sectionIndex(store: 1, section: 10))
        let s20 = try #require(d.engine.chain.sectionIndex(store: 1, section: 20))
        let s30 = try #require(d.engine.chain.sectionIndex(store: 1, section: 30))
        let rule = HysteresisRule(chain: d.engine.chain)
        var state = try leadState(d.engine, Fixture.phone)
        var section = s10
        var t = t0 + 10_000
        /// One look: `top` leads the current section (10) by `lead` dB, or 10 is on top by -`lead`.
        func look(_ top: Int, _ lead: Double, after ms: Int64) -> Double {
            t += ms
            var e = SectionEvidence(store: 0, standing: .section(s10))
            let level = { (value: Double) in SectionEvidence.Level(value: value, variance: 0) }
            if top == s10 {
                e.strongest = (s10, level(-60), 0); e.inCurrent = level(-60); e.elsewhere = level(-60 + lead)
            } else {
                e.strongest = (top, level(-60 + lead), 0); e.inCurrent = level(-60); e.elsewhere = level(-60 + lead)
            }
            if let moved = rule.decide(&state, e, at: EventTime(t)).section { section = moved }
            return state.lead.sum.value
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

/// The hysteresis rule's memory of `device` in `engine` (the default rule).
func leadState(_ engine: AggregationEngine, _ device: DeviceID) throws -> HysteresisRule.DeviceState {
    let track = try #require(engine.devices.track(of: device))
    let rule = try #require(engine.rule as? HysteresisRule)
    return rule.memory[track]
}
