import Foundation

/// One store's calibration, indexed for the `fingerprint` rule: per (gateway, state) of the
/// store, in the store's local orders (gateways as ``Chain/Store/gateways`` lists them — the
/// order of ``SectionEvidence/links`` — and states as the store's sections in
/// ``Chain/Store/sections``' order, then "just outside the store" when the walk taught it), the
/// terms of the fingerprint likelihood, precomputed; and the states one walks to from each.
public struct StoreFingerprints: Sendable {
    /// The store's sections, indices into ``Chain/sections``: local section = section − the first.
    let sections: Range<Int>
    /// The store's first section in ``Chain/sections``.
    var firstSection: Int { sections.lowerBound }
    /// Sections of the store.
    var sectionCount: Int { sections.count }
    /// States of the filter: the sections, and outside when the store has outside fingerprints.
    let stateCount: Int
    /// The local state that is "just outside the store" (after the sections); nil when the walk
    /// did not go out of the door, and the rule decides no exit.
    let outside: Int?
    /// How fast a walking device's levels change in the store, dB²/s (``Movement``); nil when the
    /// calibration does not say, and every second of evidence counts in full.
    let walkingChange: Double?
    /// How loud a phone not heard yet is expected against the tag.
    let phones: PhoneExpectation
    /// Per `[gateway × stateCount + state]`: the fingerprint's mean, dBm.
    let mean: [Double]
    /// Per `[gateway × stateCount + state]`: 1 / its standard deviation, 1/dB.
    let inverseSD: [Double]
    /// Per `[gateway × stateCount + state]`: ln h − ln σ, the log-likelihood of hearing the
    /// device there at exactly the mean.
    let heardTerm: [Double]
    /// Per `[gateway × stateCount + state]`: ln(1 − h), the log-likelihood of missing it there.
    let missedTerm: [Double]
    /// Per `[gateway × stateCount + state]`: ln σ.
    let logSD: [Double]
    /// Per `[gateway × stateCount + state]`: Φ⁻¹(h), how far above the level the gateway stops
    /// hearing at the fingerprint's mean lies, in standard deviations — so that a device louder by
    /// b is heard there Φ(Φ⁻¹(h) + a·b/σ) of the time (a: ``offsetShare``).
    let heardQuantile: [Double]
    /// Per `[gateway × stateCount + state]`: a, the share of a device's offset b from the tag that
    /// the gateway sees there, in the level it hears and in how often it hears it: 0…1,
    /// ``Gaussian/topShareVariance(_:)`` of its `heard`. A gateway that hears the device only some
    /// of the time hears the loud part of its levels, just above what it can hear, and that part
    /// moves by less than the whole (docs/ENGINE.md, "The fingerprint rule and other phones").
    let offsetShare: [Double]

    /// Indexes `store`'s fingerprints (validated against `chain`: complete, every name known) for
    /// the store at `index` in `chain`.
    init(_ store: Calibration.Store, chain: Chain, index: Int) {
        let sections = chain.stores[index].sections
        let gateways = chain.stores[index].gateways
        self.sections = sections
        walkingChange = store.walkingChange
        phones = PhoneExpectation(tagMeasuredPower: store.tagMeasuredPower, phonesOffset: store.phonesOffset)
        let outside = store.outside.map { _ in sections.count }
        self.outside = outside
        let states = sections.count + (outside == nil ? 0 : 1)
        stateCount = states
        var mean = [Double](repeating: 0, count: gateways.count * states)
        var inverseSD = mean, heardTerm = mean, missedTerm = mean, logSD = mean, heardQuantile = mean, offsetShare = mean
        let gatewayLocal = Dictionary(uniqueKeysWithValues: gateways.enumerated().map { (chain.gateways[$0.element].id.rawValue, $0.offset) })
        let sectionLocal = Dictionary(uniqueKeysWithValues: sections.map { (Int(chain.sections[$0].minor), $0 - sections.lowerBound) })
        func set(_ k: Int, meanDBm: Double, sdDB: Double, heard: Double) {
            mean[k] = meanDBm
            inverseSD[k] = 1 / sdDB
            heardTerm[k] = log(heard) - log(sdDB)
            missedTerm[k] = log(1 - heard)
            logSD[k] = log(sdDB)
            heardQuantile[k] = Gaussian.quantile(heard)
            offsetShare[k] = Gaussian.topShareVariance(heard)
        }
        for f in store.fingerprints {
            guard let g = gatewayLocal[f.gateway], let s = sectionLocal[f.section] else { continue }
            set(g * states + s, meanDBm: f.meanDBm, sdDB: f.sdDB, heard: f.heard)
        }
        if let outside {
            for f in store.outside ?? [] {
                guard let g = gatewayLocal[f.gateway] else { continue }
                set(g * states + outside, meanDBm: f.meanDBm, sdDB: f.sdDB, heard: f.heard)
            }
        }
        self.mean = mean
        self.inverseSD = inverseSD
        self.heardTerm = heardTerm
        self.missedTerm = missedTerm
        self.logSD = logSD
        self.heardQuantile = heardQuantile
        self.offsetShare = offsetShare
    }

    /// The local index of `section` (an index into ``Chain/sections``), if it is this store's.
    func local(_ section: Int) -> Int? {
        let s = section - firstSection
        return s >= 0 && s < sectionCount ? s : nil
    }

    /// log p(evidence | state) for every state, into `logLikelihood` (`stateCount` long), the
    /// gateways taken as independent: each fresh link at level l adds
    /// ln h − ln σ − ½((l − μ)/σ)², each gateway that heard someone lately but not this device
    /// adds ln(1 − h); a gateway that heard nobody says nothing.
    func logLikelihood(links: [FreshLink], missed: [MissedGateway], into logLikelihood: inout [Double]) {
        let states = stateCount
        for s in 0..<states { logLikelihood[s] = 0 }
        for link in links {
            let row = link.g * states
            for s in 0..<states {
                let z = (link.x - mean[row + s]) * inverseSD[row + s]
                logLikelihood[s] += heardTerm[row + s] - 0.5 * z * z
            }
        }
        for gateway in missed {
            let row = gateway.g * states
            for s in 0..<states { logLikelihood[s] += missedTerm[row + s] }
        }
    }
}
