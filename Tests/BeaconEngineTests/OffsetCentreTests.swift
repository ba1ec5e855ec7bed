import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// A store learns from its phones how much louder or quieter than the walking tag they are, beyond
/// what their adverts say (``OffsetCentre``), and a new phone's offset starts there. On hand-made
/// fingerprints with an outside state (``CalibrationFixture/calibrationWithOutside``).
@Suite("Fingerprint rule: what a store's phones have shown of their level")
struct OffsetCentreTests {
    let t0: Int64 = 1_790_000_000_000

    @Test("the centre is the phones' mean surplus, used from the third; past the twentieth each moves it a twentieth")
    func centre() throws {
        var centre = OffsetCentre()
        centre.learn(surplus: -8)
        centre.learn(surplus: -10)
        #expect(centre.centre == nil, "two phones say more about themselves than about the store")
        centre.learn(surplus: -12)
        #expect(centre.centre == -10)
        for _ in 0..<17 { centre.learn(surplus: 4) }
        let firstTwenty = (3 * -10.0 + 17 * 4) / 20
        #expect(abs(try #require(centre.centre) - firstTwenty) < 1e-9, "the mean of the first twenty")
        let before = try #require(centre.centre)
        centre.learn(surplus: 24)
        let moved = before + (24 - before) / 20
        #expect(abs(try #require(centre.centre) - moved) < 1e-9)
        for _ in 0..<200 { centre.learn(surplus: 4) }
        #expect(abs(try #require(centre.centre) - 4) < 0.01, "a store whose phones change follows them: \(centre)")
    }

    /// How many phones have taught store 1's centre after one phone, its adverts claiming `power`,
    /// stood 30 s in section 20 at its picture 10 dB down.
    func phonesTaught(power: Double, spread: Double = 5) throws -> Int {
        var config = CalibrationFixture.configWithOutside { $0.deviceSpreadDB = spread }
        config.calibration?.stores[0].tagMeasuredPower = -59
        let chain = try config.resolve()
        var rule = FingerprintRule(chain: chain)
        let twenty = try #require(chain.sectionIndex(store: 1, section: 20))
        rule.start(0)
        for step in 0..<120 {
            var evidence = SectionEvidence(store: 0, standing: step == 0 ? .entering : .section(twenty))
            evidence.links = [(0, -78, 4, power), (1, -65, 4, power), (2, -65, 4, power), (3, -78, 4, power)]
            _ = rule.decide(0, evidence, at: EventTime(t0 + Int64(step) * 250))
        }
        return rule.centres[0].count
    }

    @Test("a phone teaches its store once for its offset, not where its adverts claim more than is trusted, nor without a spread")
    func teaching() throws {
        #expect(try phonesTaught(power: -59) == 1, "two minutes of steps teach once")
        #expect(try phonesTaught(power: -100) == 0, "a claim 41 dB under the tag's says nothing of the store's phones")
        #expect(try phonesTaught(power: -59, spread: 0) == 0, "device_spread_db 0: no offset is learnt, none is taught")
    }

    /// The transitions of a phone first heard in section 10's door picture 10 dB down — what the tag
    /// sounds like just outside — after `before` phones as quiet have each stood 30 s in section 20;
    /// every advert claims the tag's measured power; `measured` the calibration's `phones_offset_db`.
    /// In a store that says `passers_by`, where every entry needs the rule's consent.
    func doorTransitions(after before: Int, measured: Double? = nil) throws -> [String] {
        var config = CalibrationFixture.configWithPassersBy()
        config.calibration?.stores[0].tagMeasuredPower = -59
        config.calibration?.stores[0].phonesOffset = measured
        var d = Driver(AggregationEngine(chain: try config.resolve()))
        var t = t0
        for n in 0..<before {
            let phone = try DeviceID("ib-\(Fixture.uuid)-8-\(n + 1)")
            d.hear(phone, ["gw-a": -78, "gw-b": -65, "gw-b2": -65, "gw-c": -78], from: t, to: t + 30_000)
            #expect(d.transitions.contains("enter 1/20"), "the quiet phone \(n + 1) is let in where no outside picture fits it")
            d.clear()
            t += 30_000
        }
        d.hear(Fixture.phone, ["gw-a": -65, "gw-b": -78, "gw-b2": -78], from: t, to: t + 60_000)
        let chain = d.engine.chain
        return d.transitionEvents.filter { $0.device == Fixture.phone }.map { t in
            "\(t.kind.rawValue) \(chain.stores[t.store].major)" + (t.section.map { "/\(chain.sections[$0].minor)" } ?? "")
        }
    }

    @Test("after three phones 10 dB quieter than the tag have been in, a fourth as quiet is let in at the door")
    func quietPhones() throws {
        #expect(try doorTransitions(after: 0).isEmpty, "the first quiet phone at the door is taken for the tag outside")
        #expect(try doorTransitions(after: 2).isEmpty, "two phones do not make a store's centre")
        #expect(try doorTransitions(after: 3).prefix(2) == ["enter 1", "enter 1/10"])
    }

    @Test("where the store's traffic showed its phones 10 dB quieter than the tag, the first as quiet is let in at the door")
    func measuredCentre() throws {
        #expect(try doorTransitions(after: 0, measured: -10).prefix(2) == ["enter 1", "enter 1/10"])
        #expect(try doorTransitions(after: 0, measured: 0).isEmpty, "phones measured as loud as the tag: the quiet one is the tag outside")
        let seeded = OffsetCentre(measured: -10)
        #expect(seeded.centre == -10 && seeded.count == OffsetCentre.memory, "weighed as a full memory of phones")
        var moved = seeded
        moved.learn(surplus: 10)
        #expect(moved.centre == -9, "each phone after moves it a twentieth of the way")
    }

    @Test("the phones' measured offset reads back from the file written; out of range it is refused at its path")
    func file() throws {
        try expectStoreValueReadsBack({ $0.phonesOffset = -5.5 }, key: "phones_offset_db", written: "-5.5",
                                      refused: [("-31.0", "is not -30…30"), ("30.5", "is not -30…30"), ("\"loud\"", "expected a number")])
    }
}
