import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// The `fingerprint` rule's arithmetic on hand-made fingerprints (``CalibrationFixture``), then
/// the rule in the engine: it follows a walk, holds still between sections, and leaves an
/// uncalibrated store to the hysteresis rule.
@Suite("Fingerprint rule")
struct FingerprintRuleTests {
    let t0: Int64 = 1_790_000_000_000

    /// One gateway's term of the log-likelihood, written out from the fingerprint's definition.
    static func heard(_ level: Double, hops: Int) -> Double {
        let p = CalibrationFixture.picture(hops: hops)
        return log(p.heard) - log(p.sd) - 0.5 * pow((level - p.mean) / p.sd, 2)
    }

    static func missed(hops: Int) -> Double { log(1 - CalibrationFixture.picture(hops: hops).heard) }

    static func model() throws -> StoreFingerprints { try #require(try CalibrationFixture.config().resolve().fingerprints[0]) }

    @Test("the log-likelihood adds each fresh gateway's Gaussian and share, each gateway that missed the device its share of misses")
    func logLikelihood() throws {
        let model = try Self.model()
        // gw-a (local 0, in 10) at −56, gw-b (local 1, in 20) at −69; gw-c (local 3, in 30)
        // heard someone but not this device; gw-b2 heard nobody and says nothing.
        var ll = [Double](repeating: .nan, count: 3)
        model.logLikelihood(links: [(0, -56, 9, -59), (1, -69, 9, -59)], missed: [(3, -100)], into: &ll)
        let expected = [
            Self.heard(-56, hops: 0) + Self.heard(-69, hops: 1) + Self.missed(hops: 2),
            Self.heard(-56, hops: 1) + Self.heard(-69, hops: 0) + Self.missed(hops: 1),
            Self.heard(-56, hops: 2) + Self.heard(-69, hops: 1) + Self.missed(hops: 0),
        ]
        for s in 0..<3 { #expect(abs(ll[s] - expected[s]) < 1e-9, "section \(s): \(ll[s]) against \(expected[s])") }
        // In numbers: section 10 = (ln .95 − ln 4 − 1/32) + (ln .8 − ln 4 − 1/32) + ln .8.
        #expect(abs(ll[0] - (-3.332669)) < 1e-6)
    }

    static func walking() throws -> WalkingModel {
        let chain = try CalibrationFixture.config().resolve()
        return try #require(FingerprintRule(chain: chain).walking[0])
    }

    @Test("the walking model keeps a share e^(−dt/30 s) in place and spreads the rest over the neighbours")
    func predict() throws {
        let walking = try Self.walking()
        let half = 30 * log(2.0)
        var p = [1.0, 0, 0]
        walking.predict(&p, over: half)
        #expect(abs(p[0] - 0.5) < 1e-12 && abs(p[1] - 0.5) < 1e-12 && p[2] == 0, "an end section has one neighbour")
        var q = [0.0, 1, 0]
        walking.predict(&q, over: half)
        #expect(abs(q[0] - 0.25) < 1e-12 && abs(q[1] - 0.5) < 1e-12 && abs(q[2] - 0.25) < 1e-12)
    }

    @Test("a step carries the belief forward, weighs the evidence β per half second, and floors every section")
    func step() throws {
        let chain = try CalibrationFixture.config().resolve()
        let rule = FingerprintRule(chain: chain)
        let model = try #require(chain.fingerprints[0])
        let walking = try Self.walking()
        var evidence = SectionEvidence(store: 0, standing: .unplaced)
        evidence.links = [(0, -56, 9, -59), (1, -69, 9, -59), (2, -70, 9, -59)]
        evidence.missed = [(3, -100)]
        var ll = [Double](repeating: 0, count: 3)
        model.logLikelihood(links: evidence.links, missed: evidence.missed, into: &ll)

        // The first step of a visit: the evidence alone, in full (a device heard as the tag was).
        var belief: FingerprintRule.Belief?
        var offset = DeviceOffset(spread: 0)
        #expect(rule.step(&belief, offset: &offset, model: model, walking: walking, evidence: evidence, at: EventTime(t0)) == 0)
        let first = try #require(belief).filter.belief
        let softmax = ll.map { exp($0 - ll.max()!) }
        for s in 0..<3 { #expect(abs(first[s] - max(softmax[s] / softmax.reduce(0, +), 1e-9)) < 1e-9) }

        // Half a second later: predicted over 0.5 s, then the evidence for half a second.
        _ = rule.step(&belief, offset: &offset, model: model, walking: walking, evidence: evidence, at: EventTime(t0 + 500))
        var expected = first
        walking.predict(&expected, over: 0.5)
        expected = (0..<3).map { expected[$0] * exp(FingerprintRule.evidencePerSecond * 0.5 * (ll[$0] - ll.max()!)) }
        // Normalised, lifted to the 1e-9 floor, normalised again.
        let total = expected.reduce(0, +)
        expected = expected.map { max($0 / total, 1e-9) }
        let lifted = expected.reduce(0, +)
        let second = try #require(belief).filter.belief
        for s in 0..<3 { #expect(abs(second[s] - expected[s] / lifted) < 1e-12, "section \(s): \(second[s]) against \(expected[s] / lifted)") }
        #expect(second[2] < 1e-6 && second[2] > 0, "section 30 is all but ruled out, never quite")

        // The same millisecond again changes nothing; a step behind the last one neither.
        _ = rule.step(&belief, offset: &offset, model: model, walking: walking, evidence: evidence, at: EventTime(t0 + 500))
        _ = rule.step(&belief, offset: &offset, model: model, walking: walking, evidence: evidence, at: EventTime(t0 + 100))
        #expect(try #require(belief).filter.belief == second)
    }

    @Test("the device moves only when a section holds 30:1 odds over its own; short of that the sweep keeps watching")
    func switchOdds() throws {
        let chain = try CalibrationFixture.config().resolve()
        var rule = FingerprintRule(chain: chain)
        let section20 = try #require(chain.sectionIndex(store: 1, section: 20))
        let section10 = section20 - 1
        rule.start(0)
        // The device is in 10, the belief in 20 at 10:1 over 10 — not enough.
        let odds = ForwardFilter(evidence: [log(1 / 11.5), log(10 / 11.5), log(0.5 / 11.5)], at: EventTime(t0))
        rule.memory[0].belief = FingerprintRule.Belief(store: 0, filter: odds)
        var evidence = SectionEvidence(store: 0, standing: .section(section10))
        // A millisecond later: the evidence barely counts.
        evidence.links = [(0, -61.5, 9, -59), (1, -61.5, 9, -59), (2, -61.5, 9, -59)]
        let verdict = rule.decide(0, evidence, at: EventTime(t0 + 1))
        #expect(verdict.section == nil && rule.isWatching(0), "a leader short of the odds is watched, not followed")
        // A clear picture of 20 for a few seconds gathers the odds and moves the device.
        evidence.links = [(0, -68, 9, -59), (1, -55, 9, -59), (2, -55, 9, -59), (3, -68, 9, -59)]
        var moved: Int?
        var t = t0 + 1
        while moved == nil && t < t0 + 10_000 {
            t += 250
            moved = rule.decide(0, evidence, at: EventTime(t)).section
        }
        #expect(moved == section20)
        let p = try #require(rule.memory[0].belief).filter.belief
        #expect(p[1] >= rule.switchOdds * p[0])
    }

    @Test("in the engine the rule follows a walk through the calibrated store and holds still between sections")
    func walk() throws {
        var d = Driver(AggregationEngine(chain: try CalibrationFixture.config().resolve()))
        d.hear(Fixture.phone, ["gw-a": -55, "gw-b": -68, "gw-b2": -68, "gw-c": -80], from: t0, to: t0 + 10_000)
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        d.clear()
        d.hear(Fixture.phone, ["gw-a": -68, "gw-b": -55, "gw-b2": -55, "gw-c": -68], from: t0 + 10_000, to: t0 + 20_000)
        d.hear(Fixture.phone, ["gw-a": -80, "gw-b": -68, "gw-b2": -68, "gw-c": -55], from: t0 + 20_000, to: t0 + 30_000)
        #expect(d.transitions == ["exit 1/10", "enter 1/20 from 10", "exit 1/20", "enter 1/30 from 20"])
        let moves = d.transitionEvents.filter { $0.kind == .enter }.map { $0.time - t0 }
        #expect(moves.count == 2 && moves[0] <= 14_000 && moves[1] <= 24_000, "each move within 4 s: \(moves)")
        // Confidence is the filter's posterior of the section the device is in, as published.
        #expect(try #require(d.states.last).confidence >= FingerprintRule.published(0.99))
        d.clear()
        // Ten minutes at the boundary of 20 and 30, halfway between their pictures, the levels
        // trading a 3 dB lead: at most one move, no flapping.
        var t = t0 + 30_000
        for i in 0..<600 {
            let lead = i % 2 == 0 ? 1.5 : -1.5
            d.hear(Fixture.phone, ["gw-a": -74, "gw-b": Int(-61.5 + lead), "gw-b2": Int(-61.5 + lead), "gw-c": Int(-61.5 - lead)], from: t, to: t + 1000)
            t += 1000
        }
        #expect(d.transitions.count <= 2, "\(d.transitions)")
    }

    @Test("a store without fingerprints decides as hysteresis does")
    func fallback() throws {
        var calibrated = Driver(AggregationEngine(chain: try CalibrationFixture.config().resolve()))
        var plain = Driver(try Fixture.engine())
        calibrated.hear(Fixture.tag, ["gw-h": -60], from: t0, to: t0 + 5_000)
        plain.hear(Fixture.tag, ["gw-h": -60], from: t0, to: t0 + 5_000)
        #expect(calibrated.transitions == ["enter 2", "enter 2/1"])
        #expect(calibrated.transitions == plain.transitions)
        // And the rule weighs no link at all where no store is calibrated.
        #expect(FingerprintRule(chain: try Fixture.config { $0.rule = .fingerprint }.resolve()).reads.isEmpty)
    }
}
