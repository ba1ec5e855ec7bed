/// What the engine knows of a device's level against the walking tag's: a normal belief about
/// the offset b (device − tag, dB), as wide as devices differ (`device_spread_db`) before the
/// device's own links have said anything, narrowing as they do. A phone's transmit power, its
/// antenna and the body around it make it louder or quieter than the tag everywhere by about the
/// same; fingerprints of absolute levels would carry the tag's own.
struct DeviceOffset: Sendable {
    /// The expected offset, dB.
    private(set) var mean = 0.0
    /// Its variance, dB².
    private(set) var variance: Double

    /// How much a device's level moves with how it is held from one moment to the next (a turn, a
    /// pocket), σ dB: what a step's evidence may differ from the device's own offset by.
    static let holdSD = 2.0

    /// How far from the tag's level, in spreads, a device is expected at most: an advert that
    /// claims more is more likely wrong than the device so far from the rest.
    static let trustedSpreads = 2.0

    /// A device not heard yet, among devices that differ from the tag by `spread` (σ, dB), expected
    /// `expected` dB louder than the tag (what its adverts' measured power says against the tag's),
    /// within ``trustedSpreads``.
    init(spread: Double, expected: Double = 0) {
        variance = spread * spread
        let trusted = Self.trustedSpreads * spread
        if spread > 0 { mean = min(max(expected, -trusted), trusted) }
    }

    /// The prior for one step's evidence: the belief, widened by ``holdSD``; nil when devices are
    /// taken to be heard as the tag is (`device_spread_db` 0).
    var stepPrior: StoreFingerprints.OffsetPrior? {
        variance > 0 ? StoreFingerprints.OffsetPrior(mean: mean, sd: (variance + Self.holdSD * Self.holdSD).squareRoot()) : nil
    }

    /// Learns from one step: the offset it showed (each state's best, weighted by the belief after
    /// the step) and how sure it was of it (the links' precision, 1/dB²), counted `weight` times as
    /// the step's evidence was.
    mutating func learn(offset: Double, precision: Double, weight: Double) {
        guard variance > 0 else { return }
        let gained = precision * weight
        let updated = 1 / (1 / variance + gained)
        mean = updated * (mean / variance + gained * offset)
        variance = updated
    }
}

extension Tuning {
    /// How far from the walking tag's, dB, a device's adverts' measured power is believed
    /// (``DeviceOffset/trustedSpreads`` of `device_spread_db`): a claim beyond says nothing of
    /// the phones' level.
    public var trustedClaimDB: Double { DeviceOffset.trustedSpreads * deviceSpreadDB }
}
