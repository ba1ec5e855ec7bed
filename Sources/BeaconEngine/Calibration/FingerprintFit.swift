/// Learns a store's fingerprints from samples of a walk: at each sample, the true section and
/// what each of the store's gateways made of the device then (its filtered level, or not
/// fresh). Per (gateway, section): the mean and standard deviation of the levels heard, and the
/// share of samples in which the gateway heard the device at all.
///
/// Sparse pairs get wide defaults rather than a guess: with fewer than ``minimumHeard`` levels,
/// the mean is the store's 10th percentile of every level heard and the deviation
/// ``sparseSD``; a section with no sample at all also gets the smallest share, so that nobody is
/// placed where the walk never went on the strength of a default.
public struct FingerprintFit: Sendable {
    /// What has been gathered for one store.
    struct Sums: Sendable {
        var sections: Int
        /// Samples per local section.
        var samples: [Int]
        /// Per `[gateway × sections + section]`: samples in which the gateway heard the device.
        var heard: [Int]
        var sum: [Double]
        var sumOfSquares: [Double]
        /// Every level heard in the store, for the sparse pairs' default.
        var levels: [Double] = []

        init(gateways: Int, sections: Int) {
            self.sections = sections
            samples = Array(repeating: 0, count: sections)
            heard = Array(repeating: 0, count: gateways * sections)
            sum = Array(repeating: 0, count: gateways * sections)
            sumOfSquares = sum
        }
    }

    /// Fewer levels heard than this in a (gateway, section) pair and its fingerprint is the default.
    public static let minimumHeard = 5
    /// The standard deviation of a sparse pair's default, dB.
    public static let sparseSD = 8.0

    /// The chain the samples are of.
    public let chain: Chain
    /// Per store index; nil until the store's first sample.
    var stores: [Sums?]

    /// A fit with no sample yet.
    public init(chain: Chain) {
        self.chain = chain
        stores = Array(repeating: nil, count: chain.stores.count)
    }

    /// Adds one sample: the device was in `section` (an index into ``Chain/sections``) of its store,
    /// and `levels` is what each of the store's gateways made of it, in the store's local order
    /// (``AggregationEngine/calibrationLevels(of:store:at:)``).
    public mutating func add(section: Int, levels: [Double?]) {
        let store = chain.sections[section].store
        let range = chain.stores[store].sections
        let gateways = chain.stores[store].gateways.count
        precondition(levels.count == gateways, "one level per gateway of the store")
        var sums = stores[store] ?? Sums(gateways: gateways, sections: range.count)
        let s = section - range.lowerBound
        sums.samples[s] += 1
        for (g, level) in levels.enumerated() {
            guard let level else { continue }
            let k = g * range.count + s
            sums.heard[k] += 1
            sums.sum[k] += level
            sums.sumOfSquares[k] += level * level
            sums.levels.append(level)
        }
        stores[store] = sums
    }

    /// Samples gathered per section of store `store` (an index into ``Chain/stores``), in the
    /// store's order; nil for a store with none.
    public func samples(store: Int) -> [Int]? { stores[store]?.samples }

    /// The stores sampled, as indices into ``Chain/stores``.
    public var sampledStores: [Int] { stores.indices.filter { stores[$0] != nil } }

    /// The calibration learnt so far: every sampled store, a fingerprint for each of its gateways
    /// in each of its sections; values rounded to what the file keeps (0.1 dB, 0.001).
    public func calibration(comment: String? = nil) -> Calibration {
        Calibration(comment: comment, stores: sampledStores.map { store(at: $0, sums: stores[$0]!) })
    }

    func store(at index: Int, sums: Sums) -> Calibration.Store {
        let store = chain.stores[index]
        let fallbackMean = Self.percentile(sums.levels, 10) ?? Calibration.meanRange.lowerBound
        var fingerprints: [Calibration.Fingerprint] = []
        for (g, gateway) in store.gateways.enumerated() {
            for (s, section) in store.sections.enumerated() {
                let k = g * sums.sections + s
                let n = sums.samples[s], heard = sums.heard[k]
                let share = n > 0 ? Double(heard) / Double(n) : 0
                var mean = fallbackMean, sd = Self.sparseSD
                if heard >= Self.minimumHeard {
                    mean = sums.sum[k] / Double(heard)
                    let variance = max(0, sums.sumOfSquares[k] / Double(heard) - mean * mean)
                    sd = max(Calibration.minimumSD, variance.squareRoot())
                }
                fingerprints.append(Calibration.Fingerprint(
                    gateway: chain.gateways[gateway].id.rawValue, section: Int(chain.sections[section].minor),
                    meanDBm: Self.rounded(min(max(mean, Calibration.meanRange.lowerBound), Calibration.meanRange.upperBound), 10),
                    sdDB: Self.rounded(min(sd, Calibration.maximumSD), 10),
                    heard: Self.rounded(min(max(share, Calibration.heardRange.lowerBound), Calibration.heardRange.upperBound), 1000),
                    samples: n))
            }
        }
        return Calibration.Store(major: Int(store.major), fingerprints: fingerprints)
    }

    /// `x` to the nearest 1/`scale`.
    static func rounded(_ x: Double, _ scale: Double) -> Double { (x * scale).rounded() / scale }

    /// The p-th percentile (0…100) of `values`, linearly interpolated between ranks; nil when empty.
    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = p / 100 * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down)), high = min(low + 1, sorted.count - 1)
        return sorted[low] + (rank - Double(low)) * (sorted[high] - sorted[low])
    }
}
