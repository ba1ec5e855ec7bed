import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// Walking or standing (``Movement``): told from how far a device's levels move against what the
/// calibration walk measured; learnt by the fit from the walk's steps, kept in the calibration
/// file; and what it does to the `fingerprint` rule — a standing device's evidence counts less.
@Suite("Movement: walking or standing")
struct MovementTests {
    let t0: Int64 = 1_790_000_000_000

    static func links(_ a: Double, _ b: Double) -> [FreshLink] { [(0, a, 4, -59), (1, b, 4, -59)] }

    @Test("steady levels say standing, levels moving as a walk's say walking; looks under a second apart say nothing")
    func tells() {
        var movement = Movement()
        #expect(abs(movement.walking - Movement.walkingShare) < 1e-12)
        for i in 0..<20 { movement.look(at: Self.links(-60, -70), at: EventTime(t0 + Int64(i) * 1000), walkingChange: 6) }
        #expect(movement.walking < 0.05, "\(movement.walking)")
        #expect(abs(movement.evidenceShare - Movement.standingShare) < 0.05)
        // Each link 4 dB from the last look, every second: 16 dB²/s against a walk's 6.
        for i in 20..<30 {
            let lead = i % 2 == 0 ? 2.0 : -2.0
            movement.look(at: Self.links(-60 + lead, -70 - lead), at: EventTime(t0 + Int64(i) * 1000), walkingChange: 6)
        }
        #expect(movement.walking > 0.9, "\(movement.walking)")
        let walking = movement.walking
        movement.look(at: Self.links(-40, -90), at: EventTime(t0 + 29_500), walkingChange: 6)
        #expect(movement.walking == walking, "half a second after the last look: no look")
        // After a long silence the levels are too old to compare: the belief only relaxes.
        movement.look(at: Self.links(-40, -90), at: EventTime(t0 + 40_000), walkingChange: 6)
        #expect(movement.walking < walking && movement.walking > Movement.walkingShare)
        // A link heard at one look only says nothing.
        var fresh = Movement()
        fresh.look(at: [(0, -60, 4, -59)], at: EventTime(t0), walkingChange: 6)
        fresh.look(at: [(1, -80, 4, -59)], at: EventTime(t0 + 1000), walkingChange: 6)
        #expect(abs(fresh.walking - Movement.walkingShare) < 1e-12)
    }

    @Test("the fit measures the walk's mean squared level change per second; too few changes measure nothing")
    func fit() throws {
        let chain = try CalibrationFixture.config().resolve()
        var fit = FingerprintFit(chain: chain)
        for _ in 0..<10 { fit.add(section: 0, levels: [-55, -68, -68, nil]) }
        // Per call: gw-a moved 2 dB, gw-b not at all, gw-b2 and gw-c heard at one end only.
        func change(_ count: Int, into fit: inout FingerprintFit) {
            for _ in 0..<count { fit.add(levelChangeIn: 0, from: [-60, -70, nil, -80], to: [-62, -70, -75, nil], over: 1) }
        }
        var few = fit
        change(FingerprintFit.minimumChanges / 2 - 1, into: &few)
        #expect(few.calibration().stores[0].walkingChange == nil)
        change(FingerprintFit.minimumChanges / 2, into: &fit)
        #expect(fit.calibration().stores[0].walkingChange == 2.0, "(4 + 0) dB² over 2 link-seconds")
    }

    @Test("the walking change reads back from the file written; out of range it is refused at its path")
    func file() throws {
        try expectStoreValueReadsBack({ $0.walkingChange = 6.38 }, key: "walking_change_db2_per_s", written: "6.38",
                                      refused: [("0", "is not 0.01…1000"), ("5000", "is not 0.01…1000"), ("\"fast\"", "expected a number")])
    }

    /// The moves the rule makes of a device in section 10 over `pictures` (per second, levels of
    /// gw-a, gw-b, gw-b2, gw-c), with or without the walk's change rate.
    func moves(_ pictures: [[Double]], walkingChange: Double?) throws -> [(second: Int, section: Int)] {
        var config = CalibrationFixture.config()
        config.calibration?.stores[0].walkingChange = walkingChange
        let chain = try config.resolve()
        var rule = FingerprintRule(chain: chain)
        var section = try #require(chain.sectionIndex(store: 1, section: 10))
        rule.start(0)
        var moves: [(second: Int, section: Int)] = []
        for (second, levels) in pictures.enumerated() {
            for quarter in 0..<4 {
                var evidence = SectionEvidence(store: 0, standing: .section(section))
                evidence.links = levels.enumerated().map { ($0.offset, $0.element, 4, -59) }
                let time = EventTime(t0 + Int64(second * 1000 + quarter * 250))
                if let to = rule.decide(0, evidence, at: time).section, to != section {
                    moves.append((second, Int(chain.sections[to].minor)))
                    section = to
                }
            }
        }
        return moves
    }

    /// `count` seconds from picture `a` to `b`, the levels moving evenly.
    static func drift(from a: [Double], to b: [Double], over count: Int) -> [[Double]] {
        (1...count).map { step in zip(a, b).map { $0 + ($1 - $0) * Double(step) / Double(count) } }
    }

    @Test("a standing device drifting to fit the next section a little better for a while stays; one that walks there moves")
    func rule() throws {
        let ten: [Double] = [-55, -68, -68, -80], twenty: [Double] = [-68, -55, -55, -68]
        // Between the two pictures, nearer 20 (2.0 nats a second of evidence for it, as the tag
        // is heard: a shelf's shadow on gw-a), reached and left slowly, as a standing phone's
        // levels drift.
        let shadowed: [Double] = [-61, -61, -61, -74]
        let standing = Array(repeating: ten, count: 30) + Self.drift(from: ten, to: shadowed, over: 20)
            + Array(repeating: shadowed, count: 20) + Self.drift(from: shadowed, to: ten, over: 20)
        let counted = try moves(standing, walkingChange: nil)
        #expect(counted.count == 2, "every second counted in full, the stretch takes the device to 20 and back: \(counted)")
        #expect(try moves(standing, walkingChange: 6).isEmpty)
        // Walking from 10 to 20 over five seconds, the levels moving all the way.
        let walk = Array(repeating: ten, count: 30) + Self.drift(from: ten, to: twenty, over: 5) + Array(repeating: twenty, count: 20)
        let walked = try moves(walk, walkingChange: 6), everySecond = try moves(walk, walkingChange: nil)
        #expect(walked.count == 1 && walked[0].section == 20 && everySecond.count == 1, "\(walked) \(everySecond)")
        // As soon as with every second counted in full, give or take a second: it walked.
        #expect(abs(walked[0].second - everySecond[0].second) <= 1, "\(walked) \(everySecond)")
    }
}
