import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// The `position` rule's CUSUM on the evidence of ``PositionModel`` (``PositionFixture``'s store 1,
/// sections 10–20–30 in a row), then the rule in the engine: it follows a walk, holds still at a
/// boundary, and leaves a store without geometry to the hysteresis rule.
@Suite("Position rule")
struct PositionRuleTests {
    let t0: Int64 = 1_790_000_000_000
    /// Store 1's sections, as chain indices.
    let s10 = 0, s20 = 1, s30 = 2

    static func rule() throws -> PositionRule { PositionRule(chain: try PositionFixture.config().resolve()) }

    /// Evidence about a device at (`x`, `y`) in store 1 (every gateway's link), against `current`.
    static func evidence(current: Int?, x: Double, y: Double) -> SectionEvidence {
        var evidence = SectionEvidence(store: 0, standing: current.map { .section($0) } ?? .entering)
        evidence.links = PositionModelTests.links(x: x, y: y)
        return evidence
    }

    /// The quarter-second decisions a lead of `lead` per second takes to sum to `threshold`.
    static func steps(lead: Double, threshold: Double = log(10)) -> Int {
        Int((threshold / (0.25 * min(PositionRule.leadClip, lead))).rounded(.up))
    }

    /// Decides every quarter second from `start` on `evidence` until the device moves (or 400
    /// times); the section and the decisions it took.
    func decideUntilMove(_ rule: inout PositionRule, _ evidence: SectionEvidence, from start: Int64) -> (section: Int?, steps: Int) {
        for k in 1...400 {
            if let section = rule.decide(0, evidence, at: EventTime(start + Int64(k) * 250)).section { return (section, k) }
        }
        return (nil, 400)
    }

    /// The device's sums (track 0).
    static func sums(_ rule: PositionRule) -> [Double]? { rule.memory[0].visit?.sums.map(\.value) }

    @Test("a visit starts where the links fit best; with one link, at the strongest; with none, nowhere")
    func firstSection() throws {
        var rule = try Self.rule()
        rule.start(0)
        #expect(rule.decide(0, Self.evidence(current: nil, x: 15, y: 3), at: EventTime(t0)).section == s30)
        #expect(Self.sums(rule) == [0, 0, 0] && rule.memory[0].visit?.lastLook == EventTime(t0))
        var one = SectionEvidence(store: 0, standing: .entering)
        one.links = [PositionModelTests.link("gw-b", -60)]
        one.strongest = (s20, .init(value: -60, variance: 4), 0)
        #expect(rule.decide(0, one, at: EventTime(t0)).section == s20)
        #expect(rule.decide(0, SectionEvidence(store: 0, standing: .entering), at: EventTime(t0)) == .stay)
    }

    @Test("a clear lead moves the device once its sum reaches ln 10, and every sum starts again")
    func clearMove() throws {
        var rule = try Self.rule()
        let model = try #require(rule.models[0])
        rule.start(0)
        _ = rule.decide(0, Self.evidence(current: nil, x: 3, y: 3), at: EventTime(t0))
        // At gw-b's place: 20 fits exactly, 10 by 1.8 less.
        let there = Self.evidence(current: s10, x: 9.25, y: 3.25)
        let e = try #require(PositionModelTests.evidence(model, there.links))
        #expect(e[1] - e[0] > 1.5 && e[1] - e[0] < 3)
        let (section, steps) = decideUntilMove(&rule, there, from: t0)
        #expect(section == s20)
        #expect(steps == Self.steps(lead: e[1] - e[0]), "0.25 s × \(e[1] - e[0]) per step up to ln 10")
        #expect(Self.sums(rule) == [0, 0, 0] && !rule.isWatching(0))
    }

    @Test("a small lead that lasts moves the device in time; one that comes and goes never does")
    func comingAndGoing() throws {
        var rule = try Self.rule()
        let model = try #require(rule.models[0])
        rule.start(0)
        _ = rule.decide(0, Self.evidence(current: nil, x: 3, y: 3), at: EventTime(t0))
        // Just across the boundary into 20: a lead of about 0.1 per second, summed for 20-odd s.
        let near = Self.evidence(current: s10, x: 6.5, y: 3)
        let e = try #require(PositionModelTests.evidence(model, near.links))
        let lead = e[1] - e[0]
        #expect(lead > 0.05 && lead < 0.2)
        let (section, steps) = decideUntilMove(&rule, near, from: t0)
        #expect(section == s20 && steps == Self.steps(lead: lead) && steps > 60)

        // In 10, the picture swapping every quarter second between 20's (+1.8) and 10's (−2.2):
        // what one look adds the next takes away.
        rule.start(0)
        _ = rule.decide(0, Self.evidence(current: nil, x: 3, y: 3), at: EventTime(t0))
        let away = Self.evidence(current: s10, x: 9.25, y: 3.25), home = Self.evidence(current: s10, x: 3, y: 3)
        for k in 1...240 {
            let verdict = rule.decide(0, k % 2 == 1 ? away : home, at: EventTime(t0 + Int64(k) * 250))
            #expect(verdict == .stay)
            #expect(rule.isWatching(0) == (k % 2 == 1), "the sweep looks again while 20 holds a sum")
        }
        #expect(rule.memory[0].visit!.sums[1].value == 0)
    }

    @Test("a section two away needs half again the evidence: the device walks through the one between")
    func hops() throws {
        var rule = try Self.rule()
        let model = try #require(rule.models[0])
        #expect(abs(rule.threshold(model, from: s10, to: s30) - 1.5 * log(10)) < 1e-12)
        #expect(abs(rule.threshold(model, from: s10, to: s20) - log(10)) < 1e-12)
        rule.start(0)
        _ = rule.decide(0, Self.evidence(current: nil, x: 3, y: 3), at: EventTime(t0))
        // At gw-c: both 20 and 30 lead 10 by the most one second counts (3); 20 gets there first.
        let far = Self.evidence(current: s10, x: 15, y: 3)
        let first = decideUntilMove(&rule, far, from: t0)
        #expect(first.section == s20 && first.steps == 4)
        let start = t0 + Int64(first.steps) * 250
        let e = try #require(PositionModelTests.evidence(model, far.links))
        let second = decideUntilMove(&rule, Self.evidence(current: s20, x: 15, y: 3), from: start)
        #expect(second.section == s30 && second.steps == Self.steps(lead: e[2] - e[1]))
    }

    @Test("one link, a look behind the last, a device placed without the rule: no evidence, nothing summed")
    func noEvidence() throws {
        var rule = try Self.rule()
        rule.start(0)
        // Restored in 20: the visit's sums start at the first decision.
        #expect(rule.decide(0, Self.evidence(current: s20, x: 3, y: 3), at: EventTime(t0)) == .stay)
        #expect(Self.sums(rule) == [0, 0, 0] && rule.memory[0].visit?.lastLook == EventTime(t0))
        rule.memory[0].visit?.sums[0].add(1, over: 1, drift: 0)
        var one = SectionEvidence(store: 0, standing: .section(s20))
        one.links = [PositionModelTests.link("gw-a", -50)]
        #expect(rule.decide(0, one, at: EventTime(t0 + 1000)) == .stay)
        #expect(Self.sums(rule) == [1, 0, 0] && rule.memory[0].visit?.lastLook == EventTime(t0 + 1000))
        #expect(rule.decide(0, Self.evidence(current: s20, x: 3, y: 3), at: EventTime(t0 + 500)) == .stay)
        #expect(Self.sums(rule) == [1, 0, 0] && rule.memory[0].visit?.lastLook == EventTime(t0 + 1000))
        rule.endVisit(0)
        #expect(rule.memory[0].visit == nil)
    }

    @Test("confidence is the section's share of the sections' evidence")
    func confidence() throws {
        var rule = try Self.rule()
        let model = try #require(rule.models[0])
        let there = Self.evidence(current: s20, x: 9.25, y: 3.25)
        let e = try #require(PositionModelTests.evidence(model, there.links))
        let expected = 1 / e.map { exp($0 - e[1]) }.reduce(0, +)
        rule.start(0)
        let confidence = try #require(rule.confidence(0, in: s20, there))
        #expect(abs(confidence - expected) < 1e-12 && confidence > 0.6)
    }

    @Test("without geometry the rule weighs no link and decides as hysteresis does")
    func fallback() throws {
        let bare = PositionRule(chain: try Fixture.config { $0.rule = .position }.resolve())
        #expect(bare.models.allSatisfy { $0 == nil } && bare.reads.isEmpty)
        let positioned = try Self.rule()
        #expect(positioned.models[0] != nil && positioned.models[1] == nil && positioned.reads.contains(.everyLink))

        // The whole fixture chain, no geometry: the same events as hysteresis.
        func walk(_ driver: inout Driver) {
            driver.hear(Fixture.tag, ["gw-a": -55, "gw-b": -70, "gw-c": -80], from: t0, to: t0 + 10_000)
            driver.hear(Fixture.tag, ["gw-a": -70, "gw-b": -55, "gw-b2": -60, "gw-c": -70], from: t0 + 10_000, to: t0 + 20_000)
            driver.hear(Fixture.tag, ["gw-h": -60], from: t0 + 60_000, to: t0 + 70_000)
        }
        var position = Driver(try Fixture.engine { $0.rule = .position })
        var hysteresis = Driver(try Fixture.engine())
        walk(&position)
        walk(&hysteresis)
        #expect(position.transitions == hysteresis.transitions)
        #expect(position.transitions.contains("enter 1/20 from 10") && position.transitions.contains("enter 2/1"))

        // Store 2 of the positioned chain has no geometry either.
        var mixed = Driver(AggregationEngine(chain: try PositionFixture.config().resolve()))
        var plain = Driver(try Fixture.engine())
        mixed.hear(Fixture.tag, ["gw-h": -60], from: t0, to: t0 + 5_000)
        plain.hear(Fixture.tag, ["gw-h": -60], from: t0, to: t0 + 5_000)
        #expect(mixed.transitions == ["enter 2", "enter 2/1"] && mixed.transitions == plain.transitions)
    }

    @Test("in the engine the rule follows a walk through the store and holds still at a boundary")
    func walk() throws {
        var d = Driver(AggregationEngine(chain: try PositionFixture.config().resolve()))
        d.hear(Fixture.phone, PositionFixture.reported(x: 3, y: 3), from: t0, to: t0 + 10_000)
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        d.clear()
        // The phone's own power is 6 dB hot: the offset is profiled out.
        d.hear(Fixture.phone, PositionFixture.reported(x: 9.25, y: 3.25, offset: 6), from: t0 + 10_000, to: t0 + 20_000)
        d.hear(Fixture.phone, PositionFixture.reported(x: 15, y: 3, offset: 6), from: t0 + 20_000, to: t0 + 30_000)
        #expect(d.transitions == ["exit 1/10", "enter 1/20 from 10", "exit 1/20", "enter 1/30 from 20"])
        let moves = d.transitionEvents.filter { $0.kind == .enter }.map { $0.time - t0 }
        #expect(moves.count == 2 && moves[0] <= 14_000 && moves[1] <= 24_000, "each move within 4 s: \(moves)")
        #expect(try #require(d.states.last).confidence > 0.5)
        d.clear()
        // Five minutes on the boundary of 20 and 30, the picture swapping sides every second.
        var t = t0 + 30_000
        for i in 0..<300 {
            d.hear(Fixture.phone, PositionFixture.reported(x: i % 2 == 0 ? 11.9 : 12.1, y: 3), from: t, to: t + 1000)
            t += 1000
        }
        #expect(d.transitions.count <= 2, "\(d.transitions)")
    }
}
