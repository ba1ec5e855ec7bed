import Foundation

extension StoreFingerprints {
    /// What is known of a device's level against the walking tag's before its links are weighed:
    /// a normal prior on the offset b (device − tag), dB.
    struct OffsetPrior: Sendable, Equatable {
        /// The expected offset.
        var mean: Double
        /// Its standard deviation; a phone whose level nothing is known of yet: the spread of phones.
        var sd: Double
    }

    /// ln of the least share of the time a gateway hears, or misses, a device whatever its offset:
    /// the least a calibration's `heard` leaves either (``Calibration/heardRange``) — a gateway is
    /// never certain to hear a device (a pocket, a lost packet) nor to miss it, so being heard or
    /// missed costs at most this, however far the offset puts the device from the tag (a heard
    /// level's distance from the fingerprint's mean is weighed as before).
    static let leastShare = log(Calibration.heardRange.lowerBound)

    /// log p(evidence | state) for every state, into `logLikelihood`, for a device whose level
    /// differs from the walking tag's by an unknown offset b; each state's best b (profiled out
    /// under `prior`) into `offsets`, and how precisely the links tell it (Σ w·a²) into
    /// `precisions`. Where a gateway sees a share a of the offset (``offsetShare``) the device is
    /// a·b louder: a fresh link at level l adds ln Φ(q + a·b/σ) − ln σ − ½((l − μ − a·b)/σ)²
    /// (q = Φ⁻¹(h): a louder device is heard more often), a gateway that missed the device
    /// ln Φ(−q − a·b/σ) — neither ln Φ under ``leastShare`` — and the prior −½((b − m)/s)². b is
    /// the weighted least-squares offset shrunk towards the prior:
    /// b̂ = (Σ w·a·(l − μ) + m/s²) / (Σ w·a² + 1/s²), w = 1/σ² — but for the outside state, where b
    /// is the prior's m. With b = 0 these are the terms of
    /// ``logLikelihood(links:missed:into:)``.
    func logLikelihood(links: [FreshLink], missed: [MissedGateway], prior: OffsetPrior,
                       into logLikelihood: inout [Double], offsets: inout [Double], precisions: inout [Double]) {
        let states = stateCount
        let priorPrecision = 1 / (prior.sd * prior.sd)
        Gaussian.logCDFTable.withUnsafeBufferPointer { table in
            for s in 0..<states {
                var sw = priorPrecision, swr = prior.mean * priorPrecision
                // Just outside, the device is weighed at its own offset as known so far: what tells
                // outside from inside is mostly the level itself, which a refitted offset would
                // explain away (a quieter phone inside would look like the tag outside).
                for link in links where s != outside {
                    let k = link.g * states + s
                    let wa = inverseSD[k] * inverseSD[k] * offsetShare[k]
                    sw += wa * offsetShare[k]
                    swr += wa * (link.x - mean[k])
                }
                let b = swr / sw
                var ll = -0.5 * (b - prior.mean) * (b - prior.mean) * priorPrecision
                for link in links {
                    let k = link.g * states + s
                    let louder = offsetShare[k] * b
                    let z = (link.x - mean[k] - louder) * inverseSD[k]
                    ll += max(Self.leastShare, Gaussian.logCDF(heardQuantile[k] + louder * inverseSD[k], table: table)) - logSD[k] - 0.5 * z * z
                }
                for gateway in missed {
                    let k = gateway.g * states + s
                    ll += max(Self.leastShare, Gaussian.logCDF(-heardQuantile[k] - offsetShare[k] * b * inverseSD[k], table: table))
                }
                logLikelihood[s] = ll
                offsets[s] = b
                precisions[s] = sw - priorPrecision
            }
        }
    }
}
