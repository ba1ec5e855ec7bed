import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// The `fingerprint` rule's outside state: learnt from a walk's time outside the store while its
/// gateways still hear the tag, weighed as one more state of the store's filter, and — when it
/// holds the rule's odds over every section — an exit; re-entry then needs the rule's consent, and
/// every entry where the store says `passers_by`. On hand-made fingerprints
/// (``CalibrationFixture/calibrationWithOutside``).
@Suite("Fingerprint rule: outside the store")
struct FingerprintOutsideTests {
    let t0: Int64 = 1_790_000_000_000

    /// Section 10's picture (gw-a in it) and just outside its door.
    static let inSection10 = ["gw-a": -55, "gw-b": -68, "gw-b2": -68, "gw-c": -80]
    static let outside = ["gw-a": -68, "gw-b": -82, "gw-b2": -82]

    @Test("outside samples teach one fingerprint per gateway; too few, or none heard, teach none")
    func fit() throws {
        let chain = try Fixture.config().resolve()
        var fit = FingerprintFit(chain: chain)
        for _ in 0..<30 { fit.add(section: 0, levels: [-55, -68, -68, nil]) }
        // gw-a at −66 and −70 in turn, gw-b at −80 one sample in two; gw-b2 and gw-c never.
        for i in 0..<(FingerprintFit.minimumOutside * 2) {
            fit.add(outsideOf: 0, levels: [i % 2 == 0 ? -66 : -70, i % 2 == 0 ? -80 : nil, nil, nil])
        }
        fit.add(outsideOf: 0, levels: [nil, nil, nil, nil])
        #expect(fit.outsideSamples(store: 0) == FingerprintFit.minimumOutside * 2, "a sample no gateway heard is no picture of outside")
        let outside = try #require(fit.calibration().stores.first?.outside)
        #expect(outside.map(\.gateway) == ["gw-a", "gw-b", "gw-b2", "gw-c"])
        #expect(outside[0] == .init(gateway: "gw-a", meanDBm: -68, sdDB: 3, heard: 0.98, samples: 40), "2 dB spread floored at 3")
        #expect(outside[1].meanDBm == -80 && outside[1].heard == 0.5)
        // Never heard outside: the store's quiet end (its sections' 10th percentile), wide, rare.
        #expect(outside[3].heard == 0.02 && outside[3].sdDB == FingerprintFit.sparseSD && outside[3].meanDBm == -68)
        #expect(try Calibration.parse(Array(fit.calibration().fileText().utf8)) == fit.calibration(), "it reads back")

        var short = FingerprintFit(chain: chain)
        short.add(section: 0, levels: [-55, -68, -68, nil])
        for _ in 1..<FingerprintFit.minimumOutside { short.add(outsideOf: 0, levels: [-68, nil, nil, nil]) }
        #expect(short.calibration().stores[0].outside == nil, "under 10 s outside: no outside fingerprint")
        var heardOnly = FingerprintFit(chain: chain)
        for _ in 0..<40 { heardOnly.add(outsideOf: 1, levels: [-70]) }
        heardOnly.add(section: 0, levels: [-55, -68, -68, nil])
        #expect(heardOnly.calibration().stores.map(\.major) == [1], "a store only heard from outside is not calibrated")
    }

    @Test("outside is one more state: its likelihood, and a walking graph through the street door")
    func model() throws {
        let chain = try CalibrationFixture.configWithOutside().resolve()
        let model = try #require(chain.fingerprints[0])
        #expect(model.sectionCount == 3 && model.stateCount == 4 && model.outside == 3)
        let walking = try #require(FingerprintRule(chain: chain).walking[0])
        #expect(walking.neighbours == [[1, 3], [0, 2], [1], [0]], "outside is reached through section 10's street door only")
        let noDoor = try #require(FingerprintRule(chain: try CalibrationFixture.configWithOutside(door: false).resolve()).walking[0])
        #expect(noDoor.neighbours == [[1, 3], [0, 2, 3], [1, 3], [0, 1, 2]], "no door marked: from every section")
        #expect(try #require(try CalibrationFixture.config().resolve().fingerprints[0]).stateCount == 3, "no outside fingerprint, no state")

        var ll = [Double](repeating: .nan, count: 4)
        model.logLikelihood(links: [(0, -68, 9, -59), (1, -82, 9, -59)], missed: [(3, -100)], into: &ll)
        func term(_ gateway: String, _ level: Double) -> Double {
            let p = CalibrationFixture.outsidePicture(gateway)
            return log(p.heard) - log(p.sd) - 0.5 * pow((level - p.mean) / p.sd, 2)
        }
        let expected = term("gw-a", -68) + term("gw-b", -82) + log(1 - CalibrationFixture.outsidePicture("gw-c").heard)
        #expect(abs(ll[3] - expected) < 1e-9)
        #expect(ll[3] > ll[0] + 5, "the outside picture fits outside far better than section 10")

        // Outside keeps e^(−dt/60 s) of its belief and walks the rest back in through the door.
        var p = [0.0, 0, 0, 1]
        walking.predict(&p, over: 60 * log(2.0))
        #expect(abs(p[3] - 0.5) < 1e-12 && abs(p[0] - 0.5) < 1e-12 && p[1] == 0 && p[2] == 0)
        var q = [1.0, 0, 0, 0]
        walking.predict(&q, over: 30 * log(2.0))
        #expect(abs(q[0] - 0.5) < 1e-12 && abs(q[1] - 0.25) < 1e-12 && abs(q[3] - 0.25) < 1e-12, "the door section leads to 20 and out")
    }

    @Test("heard just outside, the device leaves the store when outside holds 30:1 over every section")
    func exit() throws {
        var d = Driver(AggregationEngine(chain: try CalibrationFixture.configWithOutside().resolve()))
        d.hear(Fixture.phone, Self.inSection10, from: t0, to: t0 + 10_000)
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        d.clear()
        d.hear(Fixture.phone, Self.outside, from: t0 + 10_000, to: t0 + 40_000)
        #expect(d.transitions == ["exit 1/10", "exit 1"])
        let exit = try #require(d.transitionEvents.last)
        #expect(exit.time > t0 + 10_000 && exit.time <= t0 + 15_000, "dated when decided, within 5 s: \(exit.time - t0)")
        let track = try #require(d.engine.devices.track(of: Fixture.phone))
        #expect(d.engine.presence[track].presence.state == .outside)
        #expect(d.engine.presence.occupancy.stores[0] == 0 && d.engine.presence.occupancy.sections[0] == 0)
        #expect(d.states.last?.state == .outside)

        // The same walk on sections alone: still heard, never let out.
        var plain = Driver(AggregationEngine(chain: try CalibrationFixture.config().resolve()))
        plain.hear(Fixture.phone, Self.inSection10, from: t0, to: t0 + 10_000)
        plain.hear(Fixture.phone, Self.outside, from: t0 + 10_000, to: t0 + 40_000)
        #expect(plain.transitions == ["enter 1", "enter 1/10"])
    }

    @Test("after that exit, re-entry needs the rule's consent for as long as the device sounds outside")
    func reentry() throws {
        var d = Driver(AggregationEngine(chain: try CalibrationFixture.configWithOutside().resolve()))
        d.hear(Fixture.phone, Self.inSection10, from: t0, to: t0 + 10_000)
        d.hear(Fixture.phone, Self.outside, from: t0 + 10_000, to: t0 + 40_000)
        d.clear()
        // Three minutes in front of the window — past the street test's 120 s guard — heard throughout.
        d.hear(Fixture.phone, Self.outside, from: t0 + 40_000, to: t0 + 220_000)
        #expect(d.transitions.isEmpty, "\(d.transitions)")
        // Back in through the door.
        d.hear(Fixture.phone, Self.inSection10, from: t0 + 220_000, to: t0 + 235_000)
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        let entry = try #require(d.transitionEvents.first)
        #expect(entry.time > t0 + 220_000 && entry.time <= t0 + 225_000, "in within 5 s: \(entry.time - t0)")
    }

    @Test("after that exit and minutes unheard, a device heard just outside is a fresh one: let in on its sightings, taken out again, and kept out")
    func reentryAfterSilence() throws {
        for gap: Int64 in [90_000, 180_000, 600_000] {
            var d = Driver(AggregationEngine(chain: try CalibrationFixture.configWithOutside().resolve()))
            d.hear(Fixture.phone, Self.inSection10, from: t0, to: t0 + 10_000)
            d.hear(Fixture.phone, Self.outside, from: t0 + 10_000, to: t0 + 40_000)
            d.clear()
            d.hear(Fixture.phone, Self.outside, from: t0 + 40_000 + gap, to: t0 + 100_000 + gap)
            #expect(d.transitions.filter { $0 == "enter 1" }.count == 1 && d.transitions.last == "exit 1",
                    "after \(gap / 1000) s unheard: \(d.transitions)")
        }
    }

    /// Let in on the entry evidence, then taken out by the outside picture.
    static let inAndOut = ["enter 1", "enter 1/10", "exit 1/10", "exit 1"]

    @Test("a device first heard outside — a passer-by — is let in on its sightings as the default lets it in, taken out, and kept out")
    func passerBy() throws {
        var d = Driver(AggregationEngine(chain: try CalibrationFixture.configWithOutside().resolve()))
        d.hear(Fixture.phone, Self.outside, from: t0, to: t0 + 60_000)
        #expect(d.transitions == Self.inAndOut, "\(d.transitions)")
        let entered = try #require(d.transitionEvents.first?.time)
        let exited = try #require(d.transitionEvents.last?.time)
        #expect(exited - entered <= 10_000, "taken out within 10 s: \(exited - entered) ms")
        // Without the outside fingerprint the same sightings enter it, at the same moment, for good.
        var plain = Driver(AggregationEngine(chain: try CalibrationFixture.config().resolve()))
        plain.hear(Fixture.phone, Self.outside, from: t0, to: t0 + 60_000)
        #expect(plain.transitions == ["enter 1", "enter 1/10"])
        #expect(plain.transitionEvents.first?.time == entered)
    }

    @Test("where the store says passers_by, a passer-by is not taken in at all — the rule's consent, beyond the street test's")
    func passerByKeptOut() throws {
        var d = Driver(AggregationEngine(chain: try CalibrationFixture.configWithPassersBy().resolve()))
        d.hear(Fixture.phone, Self.outside, from: t0, to: t0 + 60_000)
        #expect(d.transitions.isEmpty, "\(d.transitions)")
        // The street test alone (the default rule, the same store) lets this one in.
        var street = Driver(AggregationEngine(chain: try CalibrationFixture.configWithPassersBy { $0.rule = .hysteresis }.resolve()))
        street.hear(Fixture.phone, Self.outside, from: t0, to: t0 + 60_000)
        #expect(street.transitions.first == "enter 1", "\(street.transitions)")
        // A shopper walking in is let in.
        var shopper = Driver(AggregationEngine(chain: try CalibrationFixture.configWithPassersBy().resolve()))
        shopper.hear(Fixture.phone, Self.inSection10, from: t0, to: t0 + 15_000)
        #expect(shopper.transitions == ["enter 1", "enter 1/10"])
    }

    @Test("where the store says passers_by, a passer-by louder than the tag, standing outside for ten minutes, is still not taken in")
    func loudPasserByStaying() throws {
        // 4 dB louder than the tag's outside picture, within the phones' spread: its level must not
        // be explained away by learning it as a quiet phone in the door's section.
        var d = Driver(AggregationEngine(chain: try CalibrationFixture.configWithPassersBy().resolve()))
        d.hear(Fixture.phone, Self.outside.mapValues { $0 + 4 }, from: t0, to: t0 + 600_000)
        #expect(d.transitions.isEmpty, "\(d.transitions)")
    }

    @Test("a quiet phone standing in the door's section is let in as the default lets it in, and kept in")
    func quietPhoneInTheDoorway() throws {
        // 8 dB below the tag in section 10: the door's picture and outside's are both near.
        let quiet = Self.inSection10.mapValues { $0 - 8 }
        var d = Driver(AggregationEngine(chain: try CalibrationFixture.configWithOutside().resolve()))
        d.hear(Fixture.phone, quiet, from: t0, to: t0 + 120_000)
        var plain = Driver(AggregationEngine(chain: try CalibrationFixture.config { $0.rule = .hysteresis }.resolve()))
        plain.hear(Fixture.phone, quiet, from: t0, to: t0 + 120_000)
        #expect(d.transitions == ["enter 1", "enter 1/10"], "\(d.transitions)")
        #expect(d.transitionEvents.first?.time == plain.transitionEvents.first?.time)
    }

    @Test("deep in the store, a moment that sounds like outside does not take the device out")
    func deepInside() throws {
        var d = Driver(AggregationEngine(chain: try CalibrationFixture.configWithOutside().resolve()))
        d.hear(Fixture.phone, ["gw-a": -80, "gw-b": -68, "gw-b2": -68, "gw-c": -55], from: t0, to: t0 + 20_000)
        #expect(d.transitions == ["enter 1", "enter 1/30"])
        d.clear()
        d.hear(Fixture.phone, Self.outside, from: t0 + 20_000, to: t0 + 21_000)
        d.hear(Fixture.phone, ["gw-a": -80, "gw-b": -68, "gw-b2": -68, "gw-c": -55], from: t0 + 21_000, to: t0 + 40_000)
        #expect(!d.transitions.contains("exit 1"), "\(d.transitions)")
    }
}
