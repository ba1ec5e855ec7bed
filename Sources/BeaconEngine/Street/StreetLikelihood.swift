import Foundation

/// The street test's likelihoods: where, inside or on the street, a set of readings fits best.
enum StreetLikelihood {
    /// The best position's log-likelihood, heard and missed gateways together — exactly, by
    /// branch and bound: the missed-gateway terms (the costly part) are never positive, so a
    /// position whose heard-links likelihood is already below the best complete one cannot win.
    /// The same sums as ``logLikelihood(_:missed:power:table:position:)``, over a position-major
    /// table (a test holds the two equal).
    ///
    /// With `enough` finite, the positions `first` are tried first, and the first position whose
    /// likelihood reaches `enough` is returned at once: the result is then ≥ `enough` and ≤ the
    /// best, and otherwise exactly the best.
    static func bestLogLikelihood(_ links: UnsafeBufferPointer<FreshLink>, missed: UnsafeBufferPointer<MissedGateway>,
                                  power: Double, table: PathLossTable,
                                  first: Range<Int> = 0..<0, enough: Double = .infinity) -> Double {
        let count = table.positions
        guard count > 0, !links.isEmpty else { return -.infinity }
        let n = links.count
        return table.values.withUnsafeBufferPointer { loss in
            Gaussian.logCDFTable.withUnsafeBufferPointer { logCDF in
                withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * n + 2 * count) { scratch in
                    let scorer = PositionScorer(links: links, missed: missed, power: power, loss: loss, stride: table.gateways,
                                                logCDF: logCDF, scratch: scratch)
                    return scorer.best(of: count, first: first, enough: enough)
                }
            }
        }
    }

    /// ``bestLogLikelihood(_:missed:power:table:)`` over arrays.
    static func bestLogLikelihood(_ links: [FreshLink], missed: [MissedGateway], power: Double, table: PathLossTable,
                                  first: Range<Int> = 0..<0, enough: Double = .infinity) -> Double {
        links.withUnsafeBufferPointer { l in
            missed.withUnsafeBufferPointer { m in bestLogLikelihood(l, missed: m, power: power, table: table, first: first, enough: enough) }
        }
    }

    /// One position's log-likelihood: the heard links with the device's common offset profiled out
    /// (as the HMM does), plus each gateway that did not hear the device, as log P(RSSI below its
    /// floor) under the same offset — a censored observation. The plain form of what
    /// ``bestLogLikelihood`` computes for every position at once.
    static func logLikelihood(_ links: [FreshLink], missed: [MissedGateway],
                              power: Double, table: PathLossTable, position k: Int) -> Double {
        let loss = { (g: Int) in table.values[k * table.gateways + g] }
        var sw = 0.0, swr = 0.0
        for l in links {
            let w = 1 / (SectionModel.modelSigma * SectionModel.modelSigma + l.variance)
            sw += w
            swr += w * (l.x - (l.power + loss(l.g)))
        }
        let b = swr / (sw + 1 / (SectionModel.offsetSigma * SectionModel.offsetSigma))
        var ll = -0.5 * b * b / (SectionModel.offsetSigma * SectionModel.offsetSigma)
        for l in links {
            let w = 1 / (SectionModel.modelSigma * SectionModel.modelSigma + l.variance)
            let r = l.x - (l.power + loss(l.g)) - b
            ll -= 0.5 * w * r * r
        }
        for m in missed {
            ll += Gaussian.logCDF((m.floor - (power + loss(m.g) + b)) / SectionModel.modelSigma)
        }
        return ll
    }
}

/// One search of ``StreetLikelihood/bestLogLikelihood(_:missed:power:table:first:enough:)`` over
/// borrowed buffers: the heard links' sums, computed once, then each position's likelihood.
private struct PositionScorer {
    let links: UnsafeBufferPointer<FreshLink>
    let missed: UnsafeBufferPointer<MissedGateway>
    let power: Double
    /// The path-loss table, position-major, `stride` gateways a row.
    let loss: UnsafeBufferPointer<Double>
    let stride: Int
    let logCDF: UnsafeBufferPointer<Double>
    /// Per link: weight w, then residual a before the path loss; per position: bound, then offset.
    let scratch: UnsafeMutableBufferPointer<Double>
    /// Σw + the offset's prior precision, and Σw·a, Σw·a².
    let d: Double, swa: Double, swaa: Double

    init(links: UnsafeBufferPointer<FreshLink>, missed: UnsafeBufferPointer<MissedGateway>, power: Double,
         loss: UnsafeBufferPointer<Double>, stride: Int, logCDF: UnsafeBufferPointer<Double>, scratch: UnsafeMutableBufferPointer<Double>) {
        let n = links.count
        var sw = 0.0, swa = 0.0, swaa = 0.0
        for i in 0..<n {
            let l = links[i]
            let w = 1 / (SectionModel.modelSigma * SectionModel.modelSigma + l.variance)
            let a = l.x - l.power
            scratch[i] = w
            scratch[n + i] = a
            sw += w
            swa += w * a
            swaa += w * a * a
        }
        (self.links, self.missed, self.power, self.loss, self.stride, self.logCDF, self.scratch) = (links, missed, power, loss, stride, logCDF, scratch)
        (self.d, self.swa, self.swaa) = (sw + 1 / (SectionModel.offsetSigma * SectionModel.offsetSigma), swa, swaa)
    }

    /// The heard links' log-likelihood at position `k`, and the device's offset there, in one
    /// pass: with residuals r = a − L, b = Σw·r / d and −½·b²·prior − ½·Σw·(r − b)² =
    /// −½·(Σw·r² − (Σw·r)² / d).
    @inline(__always)
    func heard(_ k: Int) -> (ll: Double, b: Double) {
        let n = links.count
        let row = k * stride
        var swl = 0.0, swll = 0.0, swal = 0.0
        for i in 0..<n {
            let pathLoss = loss[row + links[i].g]
            let wl = scratch[i] * pathLoss
            swl += wl
            swll += wl * pathLoss
            swal += wl * scratch[n + i]
        }
        let swr = swa - swl
        return (-0.5 * (swaa - 2 * swal + swll - swr * swr / d), swr / d)
    }

    /// Adds the missed gateways' terms at position `k` to `heardLL` — each only lowers it —
    /// stopping once it is at or below `bound`.
    @inline(__always)
    func complete(_ k: Int, _ heardLL: Double, offset b: Double, above bound: Double) -> Double {
        var ll = heardLL
        let expected = power + b
        let row = k * stride
        for m in missed {
            ll += Gaussian.logCDF((m.floor - (expected + loss[row + m.g])) / SectionModel.modelSigma, table: logCDF)
            if ll <= bound { return ll }
        }
        return ll
    }

    /// The best of the `count` positions (see ``StreetLikelihood/bestLogLikelihood(_:missed:power:table:first:enough:)``).
    func best(of count: Int, first: Range<Int>, enough: Double) -> Double {
        let n = links.count
        if enough < .infinity {
            for k in first.clamped(to: 0..<count) {
                let (ll, b) = heard(k)
                guard ll >= enough else { continue }
                let full = complete(k, ll, offset: b, above: enough.nextDown)
                if full >= enough { return full }
            }
        }
        var top = 0
        for k in 0..<count {
            let (ll, b) = heard(k)
            scratch[2 * n + k] = ll
            scratch[2 * n + count + k] = b
            if ll > scratch[2 * n + top] { top = k }
        }
        // The heard links' favourite first: its complete likelihood prunes most of the rest.
        var best = complete(top, scratch[2 * n + top], offset: scratch[2 * n + count + top], above: -.infinity)
        if best >= enough { return best }
        for k in 0..<count where k != top && scratch[2 * n + k] > best {
            best = max(best, complete(k, scratch[2 * n + k], offset: scratch[2 * n + count + k], above: best))
            if best >= enough { return best }
        }
        return best
    }
}
