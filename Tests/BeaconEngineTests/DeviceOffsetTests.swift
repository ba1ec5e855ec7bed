import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// A calibration learnt from one tag carries over to other phones: the fingerprint likelihood with
/// the device's offset from the tag profiled out (``StoreFingerprints/logLikelihood(links:missed:prior:into:offsets:precisions:)``),
/// the offset learnt as the device goes (``DeviceOffset``), and the rule in the engine following
/// a walk made by a phone louder or quieter than the tag.
@Suite("Fingerprint rule: other phones than the tag")
struct DeviceOffsetTests {
    let t0: Int64 = 1_790_000_000_000

    static func model() throws -> StoreFingerprints { try #require(try CalibrationFixture.config().resolve().fingerprints[0]) }

    static func weigh(_ model: StoreFingerprints, _ links: [FreshLink], missed: [MissedGateway] = [], prior: StoreFingerprints.OffsetPrior)
        -> (ll: [Double], offsets: [Double], precisions: [Double]) {
        var ll = [Double](repeating: .nan, count: model.stateCount), offsets = ll, precisions = ll
        model.logLikelihood(links: links, missed: missed, prior: prior, into: &ll, offsets: &offsets, precisions: &precisions)
        return (ll, offsets, precisions)
    }

    @Test("with the offset held at 0 the terms are the tag's own: ln h − ln σ − ½z² per link, ln(1 − h) per miss")
    func tagItself() throws {
        let model = try Self.model()
        let links: [FreshLink] = [(0, -56, 9, -59), (1, -69, 9, -59)]
        var plain = [Double](repeating: .nan, count: 3)
        model.logLikelihood(links: links, missed: [(3, -100)], into: &plain)
        // A prior of a hundredth of a dB pins the offset; only the prior's own term and the table's
        // log Φ (to 10⁻⁴ per term) remain.
        let pinned = Self.weigh(model, links, missed: [(3, -100)], prior: .init(mean: 0, sd: 0.01))
        for s in 0..<3 {
            #expect(abs(pinned.offsets[s]) < 0.01)
            #expect(abs(pinned.ll[s] - plain[s]) < 1e-3, "state \(s): \(pinned.ll[s]) against \(plain[s])")
        }
    }

    @Test("a phone 8 dB louder or quieter than the tag: its offset is found, and the same section wins", arguments: [-8.0, 8.0])
    func shiftedPhone(_ shift: Double) throws {
        let model = try Self.model()
        // In section 20: the levels of CalibrationFixture's pictures there.
        let at20: [FreshLink] = [(0, -68, 9, -59), (1, -55, 9, -59), (2, -55, 9, -59), (3, -68, 9, -59)]
        // Each gateway hears the phone louder by its share of the shift there: nearly all of it
        // where it always hears the tag, less where it hears only the loud part of its levels.
        let loud = at20.map { ($0.g, $0.x + model.offsetShare[$0.g * model.stateCount + 1] * shift, $0.variance, $0.power) }
        let tag = Self.weigh(model, at20, prior: .init(mean: 0, sd: 6))
        let phone = Self.weigh(model, loud, prior: .init(mean: 0, sd: 6))
        #expect(phone.ll.firstIndex(of: phone.ll.max()!) == 1, "section 20 wins for the phone too: \(phone.ll)")
        // Most of the shift is found (the prior of 6 dB holds a fifth of it back).
        #expect(abs(phone.offsets[1] - tag.offsets[1] - shift) < 2, "offset \(phone.offsets[1]) for a shift of \(shift)")
        let margin = { (r: (ll: [Double], offsets: [Double], precisions: [Double])) in r.ll[1] - max(r.ll[0], r.ll[2]) }
        // A louder phone is heard more often and says more; a quieter one less, but 20 still leads.
        #expect(margin(phone) > margin(tag) / 2, "the lead of 20 holds: \(margin(phone)) against \(margin(tag))")
        #expect(shift > 0 ? margin(phone) > margin(tag) : margin(phone) < margin(tag))
        // The tag's own absolute levels move that lead by more: the shift is read as a place.
        var absolute = [Double](repeating: 0, count: 3), tagAbsolute = absolute
        model.logLikelihood(links: loud, missed: [], into: &absolute)
        model.logLikelihood(links: at20, missed: [], into: &tagAbsolute)
        let moved = abs((absolute[1] - max(absolute[0], absolute[2])) - (tagAbsolute[1] - max(tagAbsolute[0], tagAbsolute[2])))
        #expect(moved > abs(margin(phone) - margin(tag)), "absolute levels move the lead by \(moved)")
    }

    @Test("a gateway that hears the tag rarely sees little of a phone's offset, and hears a louder phone more often")
    func partlyHeard() throws {
        #expect(abs(Gaussian.topShareVariance(0.5) - (1 - 2 / Double.pi)) < 1e-6, "the top half of a normal: 1 − 2/π of its variance")
        let shares = [0.02, 0.2, 0.5, 0.8, 0.98].map(Gaussian.topShareVariance)
        #expect(shares == shares.sorted() && shares[0] < 0.15 && shares[4] > 0.85, "\(shares)")
        let model = try Self.model()
        // gw-c two sections from 10 hears the tag there 20 % of the time: a link from it tells the
        // offset far less precisely than one from gw-a, in section 10 and heard there 95 % of the time.
        let rare = Self.weigh(model, [(3, -72, 9, -59)], prior: .init(mean: 0, sd: 6))
        let usual = Self.weigh(model, [(0, -47, 9, -59)], prior: .init(mean: 0, sd: 6))
        #expect(rare.precisions[0] < usual.precisions[0] / 5, "\(rare.precisions[0]) against \(usual.precisions[0])")
        // Missing a phone 8 dB louder there costs ln Φ(−q − a·b/σ): with a of 0.22, not the full shift.
        let missed = Self.weigh(model, [(0, -47, 9, -59)], missed: [(3, -100)], prior: .init(mean: 8, sd: 0.01))
        let heardOnly = Self.weigh(model, [(0, -47, 9, -59)], prior: .init(mean: 8, sd: 0.01))
        let cost = heardOnly.ll[0] - missed.ll[0]
        #expect(cost < 0.6, "missing it there costs \(cost) nats (the whole shift would cost 2.1)")
    }

    @Test("the offset narrows as the links show it, and the step prior never narrows below how a device is held")
    func learning() throws {
        var offset = DeviceOffset(spread: 6)
        #expect(offset.stepPrior == .init(mean: 0, sd: (36.0 + 4).squareRoot()))
        for _ in 0..<120 { offset.learn(offset: 7, precision: 0.05, weight: 0.5) }
        let prior = try #require(offset.stepPrior as StoreFingerprints.OffsetPrior?)
        #expect(abs(prior.mean - 7) < 0.5, "after a minute of evidence the offset is the device's: \(prior)")
        #expect(prior.sd >= DeviceOffset.holdSD && prior.sd < 2.5)
        var tagLike = DeviceOffset(spread: 0)
        tagLike.learn(offset: 7, precision: 1, weight: 1)
        #expect(tagLike.stepPrior == nil, "device_spread_db 0: the tag's levels as they are")
    }

    @Test("in the engine a phone 8 dB quieter or louder than the tag follows the walk", arguments: [-8, 8])
    func walk(_ shift: Int) throws {
        func run(spread: Double) throws -> [String] {
            var config = CalibrationFixture.config()
            config.tuning.deviceSpreadDB = spread
            var d = Driver(AggregationEngine(chain: try config.resolve()))
            func levels(_ at: [String: Int]) -> [String: Int] { at.mapValues { $0 + shift } }
            d.hear(Fixture.phone, levels(["gw-a": -55, "gw-b": -68, "gw-b2": -68, "gw-c": -80]), from: t0, to: t0 + 20_000)
            d.hear(Fixture.phone, levels(["gw-a": -68, "gw-b": -55, "gw-b2": -55, "gw-c": -68]), from: t0 + 20_000, to: t0 + 40_000)
            d.hear(Fixture.phone, levels(["gw-a": -80, "gw-b": -68, "gw-b2": -68, "gw-c": -55]), from: t0 + 40_000, to: t0 + 60_000)
            return d.transitions
        }
        let followed = try run(spread: 6)
        #expect(followed == ["enter 1", "enter 1/10", "exit 1/10", "enter 1/20 from 10", "exit 1/20", "enter 1/30 from 20"])
    }
}
