import Foundation

/// One store's calibration, indexed for the `fingerprint` rule: per (gateway, section) of the
/// store, in the store's local orders (gateways as ``Chain/Store/gateways`` lists them — the
/// order of ``SectionEvidence/links`` — and sections as ``Chain/Store/sections`` does), the terms
/// of the fingerprint likelihood, precomputed; and the sections one walks to from each.
public struct StoreFingerprints: Sendable {
    /// The store's first section in ``Chain/sections``: local section = section − this.
    let firstSection: Int
    /// Sections of the store.
    let sectionCount: Int
    /// Per `[gateway × sectionCount + section]`: the fingerprint's mean, dBm.
    let mean: [Double]
    /// Per `[gateway × sectionCount + section]`: 1 / its standard deviation, 1/dB.
    let inverseSD: [Double]
    /// Per `[gateway × sectionCount + section]`: ln h − ln σ, the log-likelihood of hearing the
    /// device there at exactly the mean.
    let heardTerm: [Double]
    /// Per `[gateway × sectionCount + section]`: ln(1 − h), the log-likelihood of missing it there.
    let missedTerm: [Double]
    /// Per local section, the local sections one can walk to directly (every other one when the
    /// store has no adjacency).
    let neighbours: [[Int]]

    /// Indexes `store`'s fingerprints (validated against `chain`: complete, every name known) for
    /// the store at `index` in `chain`.
    init(_ store: Calibration.Store, chain: Chain, index: Int) {
        let sections = chain.stores[index].sections
        let gateways = chain.stores[index].gateways
        firstSection = sections.lowerBound
        sectionCount = sections.count
        var mean = [Double](repeating: 0, count: gateways.count * sections.count)
        var inverseSD = mean, heardTerm = mean, missedTerm = mean
        let gatewayLocal = Dictionary(uniqueKeysWithValues: gateways.enumerated().map { (chain.gateways[$0.element].id.rawValue, $0.offset) })
        let sectionLocal = Dictionary(uniqueKeysWithValues: sections.map { (Int(chain.sections[$0].minor), $0 - sections.lowerBound) })
        for fingerprint in store.fingerprints {
            guard let g = gatewayLocal[fingerprint.gateway], let s = sectionLocal[fingerprint.section] else { continue }
            let k = g * sections.count + s
            mean[k] = fingerprint.meanDBm
            inverseSD[k] = 1 / fingerprint.sdDB
            heardTerm[k] = log(fingerprint.heard) - log(fingerprint.sdDB)
            missedTerm[k] = log(1 - fingerprint.heard)
        }
        self.mean = mean
        self.inverseSD = inverseSD
        self.heardTerm = heardTerm
        self.missedTerm = missedTerm
        neighbours = sections.map { s in
            guard let adjacent = chain.sections[s].adjacent else {
                return sections.indices.filter { $0 != s }.map { $0 - sections.lowerBound }
            }
            return adjacent.map { $0 - sections.lowerBound }.sorted()
        }
    }

    /// The local index of `section` (an index into ``Chain/sections``), if it is this store's.
    func local(_ section: Int) -> Int? {
        let s = section - firstSection
        return s >= 0 && s < sectionCount ? s : nil
    }

    /// log p(evidence | section) for every section, into `logLikelihood` (`sectionCount` long),
    /// the gateways taken as independent: each fresh link at level l adds
    /// ln h − ln σ − ½((l − μ)/σ)², each gateway that heard someone lately but not this device
    /// adds ln(1 − h); a gateway that heard nobody says nothing.
    func logLikelihood(links: [FreshLink], missed: [MissedGateway], into logLikelihood: inout [Double]) {
        for s in 0..<sectionCount { logLikelihood[s] = 0 }
        for link in links {
            let row = link.g * sectionCount
            for s in 0..<sectionCount {
                let z = (link.x - mean[row + s]) * inverseSD[row + s]
                logLikelihood[s] += heardTerm[row + s] - 0.5 * z * z
            }
        }
        for gateway in missed {
            let row = gateway.g * sectionCount
            for s in 0..<sectionCount { logLikelihood[s] += missedTerm[row + s] }
        }
    }

    /// The walking model over `dt` seconds: the device stays with probability e^(−dt/`stay`), else
    /// walks to one of its section's neighbours, each as likely.
    func predict(_ posterior: inout [Double], over dt: Double, stay stayTime: Double) {
        let stay = exp(-dt / stayTime)
        let before = posterior
        for s in 0..<sectionCount { posterior[s] = before[s] * stay }
        for s in 0..<sectionCount {
            let moving = before[s] * (1 - stay)
            if neighbours[s].isEmpty {
                posterior[s] += moving
            } else {
                let share = moving / Double(neighbours[s].count)
                for n in neighbours[s] { posterior[n] += share }
            }
        }
    }
}
