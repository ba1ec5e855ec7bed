import Foundation
@testable import BeaconSim

/// The instrument that measures how much of a link's level belongs to a whole section, the same
/// on real recordings and on the simulator, so the two read alike.
///
/// Each link's levels get a log-distance path-loss fit (`rssi = A − 10·n·log10 d`, A and n per
/// link); its residuals are then compared in pairs of samples that share nothing but the place
/// — taken on different runs, or at least ``independentAfter`` apart on one, so time-varying
/// shadowing, fading and a recording's smoothing are not shared. A pair's product averages to the
/// covariance of the residual at that distance apart. The shadowing bound to spots is the same
/// whether two samples lie in one section or in two; a level bound to the section is shared only
/// by pairs within one. So the section's part is the excess of same-section over cross-section
/// covariance at matched distances (``bands`` from ``gapFrom`` out, where the excess has grown in
/// whole), `gap`. The per-link fit centres each link's residuals, which makes two sections'
/// offsets covary by −σ²/(k−1) for k sections: σ² = gap·(k−1)/k.
struct SectionLevelSplit {
    /// One reading: a link (gateway) heard the device at a place, in a section, at a time.
    struct Sample {
        var link: Int
        var section: Int
        /// The run it was recorded on: samples of two runs share no time-varying error.
        var run: Int
        /// Unix ms.
        var time: Int64
        var x: Double
        var y: Double
        /// Distance to the gateway, metres (heights included).
        var distance: Double
        var rssi: Double
    }

    /// Covariance of residual pairs in one distance band, within one section and across two.
    struct Band {
        var range: Range<Double>
        var same: Double
        var sameCount: Int
        var across: Double
        var acrossCount: Int
    }

    /// Distance bands, metres.
    static let bands: [Range<Double>] = [0..<0.5, 0.5..<1, 1..<1.5, 1.5..<2, 2..<2.5, 2.5..<3, 3..<4, 4..<5]
    /// Bands nearer than this are left out of the gap: near a boundary two sections' levels blend.
    static let gapFrom = 1.0
    /// A band counts towards a link's gap with at least this many pairs each side.
    static let minimumPairs = 100
    /// Two samples of one run this far apart share no time-varying error, ms: the simulator's
    /// shadowing stays correlated for 6 s, the recordings are smoothed over a second or two.
    static let independentAfter: Int64 = 30_000

    /// Links fitted, samples, and the residuals' standard deviation, dB.
    var links = 0, samples = 0
    var residualSD = 0.0
    /// Per band, pooled over links.
    var pooled: [Band] = []
    /// Same-section minus cross-section covariance, dB², the mean of the links' (each weighted
    /// over its bands by its smaller pair count), with its standard error over links.
    var gap = 0.0, gapError = 0.0
    /// Links with a gap.
    var gapLinks = 0
    /// The sections per link's store, on average.
    var sections = 0.0
    /// The section part, dB: √(gap·(k−1)/k).
    var sigma: Double { (max(0, gap) * (sections - 1) / sections).squareRoot() }
    /// The same with the gap one standard error lower and higher, dB.
    var sigmaRange: (low: Double, high: Double) {
        func s(_ g: Double) -> Double { (max(0, g) * (sections - 1) / sections).squareRoot() }
        return (s(gap - gapError), s(gap + gapError))
    }
    /// The spread of (link, section) mean residuals with the noise of each mean removed (the mean
    /// product of independent pairs within each), dB: the section's part and the spot-bound
    /// shadowing averaged over the section, which in small rooms is most of it.
    var groupMeanSD = 0.0

    /// Splits `samples`; `sectionsPerLink` gives each link's store's section count.
    init(_ samples: [Sample], sectionsPerLink: (Int) -> Int) {
        let byLink = Dictionary(grouping: samples, by: \.link)
        var squares = 0.0
        var pooled = Self.bands.map { Band(range: $0, same: 0, sameCount: 0, across: 0, acrossCount: 0) }
        var gaps: [Double] = [], groupMeans: [Double] = [], sectionCounts: [Double] = []
        for (link, own) in byLink.sorted(by: { $0.key < $1.key }) {
            guard let residuals = Self.residuals(own) else { continue }
            links += 1
            self.samples += own.count
            squares += residuals.reduce(0) { $0 + $1 * $1 }
            let (bands, groups) = Self.pairs(own, residuals)
            for (k, band) in bands.enumerated() {
                pooled[k].same += band.same
                pooled[k].sameCount += band.sameCount
                pooled[k].across += band.across
                pooled[k].acrossCount += band.acrossCount
            }
            groupMeans += groups
            var weighted = 0.0, weights = 0.0
            for band in bands where band.range.lowerBound >= Self.gapFrom
                && band.sameCount >= Self.minimumPairs && band.acrossCount >= Self.minimumPairs {
                let weight = Double(min(band.sameCount, band.acrossCount))
                weighted += weight * (band.same / Double(band.sameCount) - band.across / Double(band.acrossCount))
                weights += weight
            }
            if weights > 0 {
                gaps.append(weighted / weights)
                sectionCounts.append(Double(sectionsPerLink(link)))
            }
        }
        residualSD = (squares / Double(max(1, self.samples))).squareRoot()
        self.pooled = pooled.map {
            Band(range: $0.range, same: $0.same / Double(max(1, $0.sameCount)), sameCount: $0.sameCount,
                 across: $0.across / Double(max(1, $0.acrossCount)), acrossCount: $0.acrossCount)
        }
        gapLinks = gaps.count
        if !gaps.isEmpty {
            gap = gaps.reduce(0, +) / Double(gaps.count)
            let variance = gaps.reduce(0) { $0 + ($1 - gap) * ($1 - gap) } / Double(max(1, gaps.count - 1))
            gapError = (variance / Double(gaps.count)).squareRoot()
            sections = sectionCounts.reduce(0, +) / Double(sectionCounts.count)
        }
        if !groupMeans.isEmpty { groupMeanSD = max(0, groupMeans.reduce(0, +) / Double(groupMeans.count)).squareRoot() }
    }

    /// One link's residuals from its least-squares path-loss fit; nil with too few samples or
    /// distances too alike to fit.
    static func residuals(_ samples: [Sample]) -> [Double]? {
        guard samples.count >= 20 else { return nil }
        let xs = samples.map { -10 * log10(max($0.distance, 0.1)) }, ys = samples.map(\.rssi)
        let n = Double(samples.count)
        let meanX = xs.reduce(0, +) / n, meanY = ys.reduce(0, +) / n
        var sxy = 0.0, sxx = 0.0
        for (x, y) in zip(xs, ys) {
            sxy += (x - meanX) * (y - meanY)
            sxx += (x - meanX) * (x - meanX)
        }
        guard sxx > 1e-9 else { return nil }
        let exponent = sxy / sxx, intercept = meanY - exponent * meanX
        return zip(xs, ys).map { $1 - (intercept + exponent * $0) }
    }

    /// One link's independent pairs: summed products per band (not yet divided), and per section
    /// the mean product of all its independent pairs (those with 50 or more).
    static func pairs(_ samples: [Sample], _ residuals: [Double]) -> (bands: [Band], groups: [Double]) {
        var bands = Self.bands.map { Band(range: $0, same: 0, sameCount: 0, across: 0, acrossCount: 0) }
        let last = Self.bands[Self.bands.count - 1].upperBound
        var groupSum: [Int: Double] = [:], groupCount: [Int: Int] = [:]
        for i in samples.indices {
            let a = samples[i]
            for j in (i + 1)..<samples.count {
                let b = samples[j]
                guard a.run != b.run || abs(a.time - b.time) >= Self.independentAfter else { continue }
                let product = residuals[i] * residuals[j]
                let same = a.section == b.section
                if same {
                    groupSum[a.section, default: 0] += product
                    groupCount[a.section, default: 0] += 1
                }
                let dx = a.x - b.x, dy = a.y - b.y
                let distance = (dx * dx + dy * dy).squareRoot()
                guard distance < last, let k = Self.bands.firstIndex(where: { $0.contains(distance) }) else { continue }
                if same {
                    bands[k].same += product
                    bands[k].sameCount += 1
                } else {
                    bands[k].across += product
                    bands[k].acrossCount += 1
                }
            }
        }
        let groups = groupSum.keys.sorted().compactMap { s in groupCount[s]! >= 50 ? groupSum[s]! / Double(groupCount[s]!) : nil }
        return (bands, groups)
    }

    /// The figures, a few lines.
    func report(_ name: String) -> String {
        func f(_ v: Double) -> String { String(format: "%.1f", v) }
        var lines = ["\(name): \(links) links, \(samples) samples, residual sd \(f(residualSD)) dB"]
        lines.append("  distance m   same-section cov (pairs)   cross-section cov (pairs)   excess dB²")
        for band in pooled {
            let range = "\(f(band.range.lowerBound))–\(f(band.range.upperBound))".padding(toLength: 11, withPad: " ", startingAt: 0)
            lines.append("  \(range)  \(f(band.same).leftPadded(8)) (\(String(band.sameCount).leftPadded(8)))   "
                + "\(f(band.across).leftPadded(8)) (\(String(band.acrossCount).leftPadded(8)))   \(f(band.same - band.across).leftPadded(8))")
        }
        let (low, high) = sigmaRange
        lines.append("  same − cross from \(f(Self.gapFrom)) m: \(f(gap)) ± \(f(gapError)) dB² over \(gapLinks) links, "
            + "k = \(f(sections)) sections: σ_section \(String(format: "%.2f", sigma)) dB (\(f(low))–\(f(high)) at ±1 se); "
            + "group means \(f(groupMeanSD)) dB")
        return lines.joined(separator: "\n")
    }
}
