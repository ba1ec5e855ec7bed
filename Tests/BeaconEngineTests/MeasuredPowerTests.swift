import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// What a device's adverts say of its level: the measured power (the level at 1 m) they carry,
/// against the walking tag's (`tag_measured_power_dbm`), is where the `fingerprint` rule starts
/// its belief about the device's offset from the tag (``DeviceOffset``). On hand-made
/// fingerprints with an outside state (``CalibrationFixture/calibrationWithOutside``).
@Suite("Fingerprint rule: what a device's adverts say of its level")
struct MeasuredPowerTests {
    let t0: Int64 = 1_790_000_000_000

    /// ``CalibrationFixture/configWithPassersBy(_:)`` with the tag's measured power, when given.
    /// A store that says `passers_by`, where every entry needs the rule's consent.
    static func config(tagPower: Double?, rule: Tuning.Rule = .fingerprint) throws -> Chain {
        var config = CalibrationFixture.configWithPassersBy { $0.rule = rule }
        config.calibration?.stores[0].tagMeasuredPower = tagPower
        return try config.resolve()
    }

    @Test("the offset starts where the adverts say, within two spreads; with device_spread_db 0 there is none")
    func start() throws {
        #expect(DeviceOffset(spread: 5, expected: -4).stepPrior == .init(mean: -4, sd: (25.0 + 4).squareRoot()))
        #expect(DeviceOffset(spread: 5, expected: -30).stepPrior?.mean == -10, "an advert claiming 30 dB less is held to 10")
        #expect(DeviceOffset(spread: 5, expected: 25).stepPrior?.mean == 10)
        #expect(DeviceOffset(spread: 5).stepPrior?.mean == 0)
        #expect(DeviceOffset(spread: 0, expected: -4).stepPrior == nil)
    }

    @Test("the fit keeps the median measured power the tag's adverts carried; none seen, none kept")
    func fit() throws {
        let chain = try Fixture.config().resolve()
        var fit = FingerprintFit(chain: chain)
        fit.add(section: 0, levels: [-55, -68, -68, nil])
        #expect(fit.calibration().stores[0].tagMeasuredPower == nil)
        for power in Array(repeating: -59.0, count: 17) + [-60, -58, -12] { fit.add(tagPower: power, in: 0) }
        #expect(fit.calibration().stores[0].tagMeasuredPower == -59, "one odd advert in twenty does not move it")
        // Two tags claiming 6 dB apart walked the store: the fingerprints are a mix, so no claim is kept.
        var mixed = FingerprintFit(chain: chain)
        mixed.add(section: 0, levels: [-55, -68, -68, nil])
        for power in [-59.0, -65, -59, -65, -59, -65] { mixed.add(tagPower: power, in: 0) }
        #expect(mixed.calibration().stores[0].tagMeasuredPower == nil)
    }

    @Test("a device first looked at with no fresh link takes its expected offset from its first link's claim")
    func firstLink() throws {
        let chain = try Self.config(tagPower: -59)
        var rule = FingerprintRule(chain: chain)
        rule.start(0)
        let t = EventTime(t0)
        _ = rule.decide(0, SectionEvidence(store: 0, standing: .entering), at: t)
        #expect(rule.memory[0].offset == nil, "nothing heard, nothing known")
        var heard = SectionEvidence(store: 0, standing: .outside)
        heard.links = [(0, -65, 4, -69), (1, -78, 4, -69)]
        _ = rule.decide(0, heard, at: EventTime(t0 + 1000))
        let offset = try #require(rule.memory[0].offset)
        #expect(offset.store == 0)
        // The first step learns a little from the links; the start was the claim's −10 dB.
        #expect(try #require(offset.offset.stepPrior).mean < -7, "\(offset.offset)")
    }

    @Test("the tag's measured power reads back from the file written; out of range it is refused at its path")
    func file() throws {
        try expectStoreValueReadsBack({ $0.tagMeasuredPower = -59 }, key: "tag_measured_power_dbm", written: "-59.0",
                                      refused: [("-130.0", "is not a measured power"), ("21.0", "is not a measured power"),
                                                ("\"loud\"", "expected a number")])
    }

    /// The transitions of a device first heard at `levels` for 60 s, its adverts carrying `power`.
    func transitions(_ levels: [String: Int], power: Int, tagPower: Double?, rule: Tuning.Rule = .fingerprint) throws -> [String] {
        var d = Driver(AggregationEngine(chain: try Self.config(tagPower: tagPower, rule: rule)))
        d.measuredPower = power
        d.hear(Fixture.phone, levels, from: t0, to: t0 + 60_000)
        return d.transitions
    }

    @Test("a phone 10 dB quieter than the tag in the door's section is let in when its adverts say it is quiet")
    func quietInside() throws {
        // Section 10's picture 10 dB down: what the tag sounds like just outside.
        let quiet = ["gw-a": -65, "gw-b": -78, "gw-b2": -78]
        #expect(try transitions(quiet, power: -59, tagPower: -59).isEmpty, "adverts as loud as the tag's: taken for outside")
        #expect(try transitions(quiet, power: -69, tagPower: nil).isEmpty, "the calibration does not say what the tag's were")
        #expect(try transitions(quiet, power: -69, tagPower: -59).prefix(2) == ["enter 1", "enter 1/10"])
        // The street test alone (the default rule) lets it in whatever its adverts say: the refusals are the rule's.
        #expect(try transitions(quiet, power: -59, tagPower: -59, rule: .hysteresis).first == "enter 1")
    }

    @Test("a phone 12 dB louder than the tag just outside stays out when its adverts say it is loud")
    func loudOutside() throws {
        // 12 dB louder as each gateway hears it there (its share of the offset, ENGINE.md).
        let loud = FingerprintOutsideTests.outside.map { gateway, level in
            (gateway, level + Int((12 * Gaussian.topShareVariance(CalibrationFixture.outsidePicture(gateway).heard)).rounded()))
        }
        .reduce(into: [String: Int]()) { $0[$1.0] = $1.1 }
        #expect(try transitions(loud, power: -59, tagPower: -59).first == "enter 1", "adverts as loud as the tag's: taken for inside")
        #expect(try transitions(loud, power: -47, tagPower: -59).isEmpty)
        #expect(try transitions(loud, power: -47, tagPower: -59, rule: .hysteresis).first == "enter 1", "the street test alone lets it in")
    }
}
