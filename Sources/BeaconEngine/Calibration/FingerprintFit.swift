/// Learns a store's fingerprints from samples of a walk: at each sample, the true section and
/// what each of the store's gateways made of the device then (its filtered level, or not
/// fresh). Per (gateway, section): the mean and standard deviation of the levels heard, and the
/// share of samples in which the gateway heard the device at all. From the levels' changes over
/// the walk's steps, how fast a walking device's levels change in the store
/// (``add(levelChangeIn:from:to:over:)``). Samples taken while the walk was outside every store
/// and some gateway of the store still heard it teach the store's outside fingerprints the same
/// way, one per gateway, given ``minimumOutside`` of them.
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
        /// Samples outside every store while some gateway of this one heard the device.
        var outsideSamples = 0
        /// Per gateway: outside samples in which it heard the device, and its levels' sums.
        var outsideHeard: [Int]
        var outsideSum: [Double]
        var outsideSumOfSquares: [Double]
        /// The walk's level changes inside the store.
        var changes = LevelChanges()
        /// The measured power the tag's adverts carried at the samples in a section, dBm.
        var powers: [Double] = []

        init(gateways: Int, sections: Int) {
            self.sections = sections
            samples = Array(repeating: 0, count: sections)
            heard = Array(repeating: 0, count: gateways * sections)
            sum = Array(repeating: 0, count: gateways * sections)
            sumOfSquares = sum
            outsideHeard = Array(repeating: 0, count: gateways)
            outsideSum = Array(repeating: 0, count: gateways)
            outsideSumOfSquares = outsideSum
        }
    }

    /// Fewer levels heard than this in a (gateway, section) pair and its fingerprint is the default.
    public static let minimumHeard = 5
    /// The standard deviation of a sparse pair's default, dB.
    public static let sparseSD = 8.0
    /// Fewer samples outside than this (10 s) and the store gets no outside fingerprint: a picture
    /// of outside from a moment at the door would take shoppers near it out of the store.
    public static let minimumOutside = 20

    /// The changes of links heard at both ends of a step of the walk: their squares summed, their
    /// seconds summed, how many.
    struct LevelChanges: Sendable {
        var squares = 0.0
        var seconds = 0.0
        var count = 0

        /// The mean squared change per second, dB²/s, once there are `minimum` changes.
        func rate(minimum: Int) -> Double? { count >= minimum && seconds > 0 ? squares / seconds : nil }
    }

    /// Fewer level changes than this (a link heard at both ends of a step) and the store gets no
    /// `walking_change_db2_per_s`: half a minute of walking past one gateway is too little to say.
    public static let minimumChanges = 60

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

    /// Adds one sample taken while the device was outside every store and at least one gateway of
    /// `store` (an index into ``Chain/stores``) heard it: `levels` as for ``add(section:levels:)``.
    /// A sample no gateway of the store heard is no picture of outside: the rule weighs nothing
    /// then, and it is skipped.
    public mutating func add(outsideOf store: Int, levels: [Double?]) {
        let gateways = chain.stores[store].gateways.count
        precondition(levels.count == gateways, "one level per gateway of the store")
        guard levels.contains(where: { $0 != nil }) else { return }
        var sums = stores[store] ?? Sums(gateways: gateways, sections: chain.stores[store].sections.count)
        sums.outsideSamples += 1
        for (g, level) in levels.enumerated() {
            guard let level else { continue }
            sums.outsideHeard[g] += 1
            sums.outsideSum[g] += level
            sums.outsideSumOfSquares[g] += level * level
        }
        stores[store] = sums
    }

    /// Adds how the levels changed over one step of the walk inside `store` (an index into
    /// ``Chain/stores``): `before` and `after`, as for ``add(section:levels:)``, `seconds` apart.
    /// A link heard at one end only says nothing.
    public mutating func add(levelChangeIn store: Int, from before: [Double?], to after: [Double?], over seconds: Double) {
        let gateways = chain.stores[store].gateways.count
        precondition(before.count == gateways && after.count == gateways, "one level per gateway of the store")
        guard seconds > 0 else { return }
        var sums = stores[store] ?? Sums(gateways: gateways, sections: chain.stores[store].sections.count)
        for (old, new) in zip(before, after) {
            guard let old, let new else { continue }
            sums.changes.squares += (new - old) * (new - old)
            sums.changes.seconds += seconds
            sums.changes.count += 1
        }
        stores[store] = sums
    }

    /// Adds the measured power (the level at 1 m, dBm) the tag's adverts carried at one sample in
    /// a section of `store` (an index into ``Chain/stores``): the store's calibration keeps their
    /// median, the level the fingerprints are of — unless the samples disagree (tags that claim
    /// different powers, whose fingerprints are a mix of them), when it keeps none.
    public mutating func add(tagPower power: Double, in store: Int) {
        var sums = stores[store] ?? Sums(gateways: chain.stores[store].gateways.count, sections: chain.stores[store].sections.count)
        sums.powers.append(power)
        stores[store] = sums
    }

    /// Samples gathered per section of store `store` (an index into ``Chain/stores``), in the
    /// store's order; nil for a store with none.
    public func samples(store: Int) -> [Int]? { stores[store]?.samples }

    /// Samples gathered outside store `store` while its gateways heard the device; nil for a
    /// store with no sample at all.
    public func outsideSamples(store: Int) -> Int? { stores[store]?.outsideSamples }

    /// The stores sampled in some section, as indices into ``Chain/stores``: a store only heard
    /// from outside is not calibrated.
    public var sampledStores: [Int] { stores.indices.filter { stores[$0]?.samples.contains { $0 > 0 } ?? false } }

    /// The calibration learnt so far: every sampled store, a fingerprint for each of its gateways
    /// in each of its sections, and outside it when the walk stood outside long enough; values
    /// rounded to what the file keeps (0.1 dB, 0.001).
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
                let p = Self.picture(samples: sums.samples[s], heard: sums.heard[k], sum: sums.sum[k], sumOfSquares: sums.sumOfSquares[k],
                                     fallbackMean: fallbackMean)
                fingerprints.append(Calibration.Fingerprint(
                    gateway: chain.gateways[gateway].id.rawValue, section: Int(chain.sections[section].minor),
                    meanDBm: p.mean, sdDB: p.sd, heard: p.heard, samples: sums.samples[s]))
            }
        }
        var outside: [Calibration.OutsideFingerprint]?
        if sums.outsideSamples >= Self.minimumOutside {
            outside = store.gateways.enumerated().map { g, gateway in
                let p = Self.picture(samples: sums.outsideSamples, heard: sums.outsideHeard[g], sum: sums.outsideSum[g],
                                     sumOfSquares: sums.outsideSumOfSquares[g], fallbackMean: fallbackMean)
                return Calibration.OutsideFingerprint(gateway: chain.gateways[gateway].id.rawValue, meanDBm: p.mean, sdDB: p.sd,
                                                      heard: p.heard, samples: sums.outsideSamples)
            }
        }
        let range = Calibration.walkingChangeRange
        let walkingChange = sums.changes.rate(minimum: Self.minimumChanges).map { min(max(Self.rounded($0, 100), range.lowerBound), range.upperBound) }
        let power = Self.tagPower(sums.powers)
        return Calibration.Store(major: Int(store.major), fingerprints: fingerprints, outside: outside, walkingChange: walkingChange,
                                 tagMeasuredPower: power)
    }

    /// One gateway's picture of one place from `samples` there, `heard` of them with a level
    /// (`sum` and `sumOfSquares` of those levels): rounded and clamped as the file keeps it, the
    /// sparse default where it heard fewer than ``minimumHeard`` — the store's quiet end
    /// (`fallbackMean`, its 10th percentile in the sections), ``sparseSD`` wide.
    static func picture(samples n: Int, heard: Int, sum: Double, sumOfSquares: Double, fallbackMean: Double)
        -> (mean: Double, sd: Double, heard: Double)
    {
        let share = n > 0 ? Double(heard) / Double(n) : 0
        var mean = fallbackMean, sd = sparseSD
        if heard >= minimumHeard {
            mean = sum / Double(heard)
            let variance = max(0, sumOfSquares / Double(heard) - mean * mean)
            sd = max(Calibration.minimumSD, variance.squareRoot())
        }
        return (rounded(min(max(mean, Calibration.meanRange.lowerBound), Calibration.meanRange.upperBound), 10),
                rounded(min(sd, Calibration.maximumSD), 10),
                rounded(min(max(share, Calibration.heardRange.lowerBound), Calibration.heardRange.upperBound), 1000))
    }

    /// `x` to the nearest 1/`scale`.
    static func rounded(_ x: Double, _ scale: Double) -> Double { (x * scale).rounded() / scale }

    /// The p-th percentile (0…100) of `values`, linearly interpolated between ranks; nil when empty.
    /// The tags' measured power from the samples' `powers`: their median, rounded as the file
    /// keeps it, when nine samples in ten lie within ``powerAgreement`` of each other; else none.
    static func tagPower(_ powers: [Double]) -> Double? {
        guard let low = percentile(powers, 10), let high = percentile(powers, 90), high - low <= powerAgreement,
              let median = percentile(powers, 50) else { return nil }
        let range = Calibration.measuredPowerRange
        return min(max(rounded(median, 10), range.lowerBound), range.upperBound)
    }

    /// How far apart the tags' measured powers may lie and still be one, dB: a unit's claim is a
    /// whole number of dBm.
    static let powerAgreement = 1.0

    static func percentile(_ values: [Double], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = p / 100 * Double(sorted.count - 1)
        let low = Int(rank.rounded(.down)), high = min(low + 1, sorted.count - 1)
        return sorted[low] + (rank - Double(low)) * (sorted[high] - sorted[low])
    }
}
