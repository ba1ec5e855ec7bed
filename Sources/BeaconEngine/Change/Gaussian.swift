import Foundation

/// The standard normal distribution, as the likelihoods use it: log Φ fast (a table), and Φ⁻¹.
enum Gaussian {
    /// log Φ at z = −8 + i/64, i = 0 … 13·64 (see ``logCDF(_:)``).
    static let logCDFTable: [Double] = (0...(13 * 64)).map { i in
        let z = -8 + Double(i) / 64
        return log(0.5 * erfc(-z / 2.0.squareRoot()))
    }

    /// log Φ(z): 0 above z = 5 (the error is under 3·10⁻⁷), the asymptotic series below −8, and
    /// in between a table at 1/64 steps, linearly interpolated (error under 10⁻⁴) — erfc and log
    /// per missed gateway and position were most of the engine's time.
    static func logCDF(_ z: Double) -> Double {
        logCDFTable.withUnsafeBufferPointer { logCDF(z, table: $0) }
    }

    /// ``logCDF(_:)`` with the table in hand (a hot loop fetches it once).
    @inline(__always)
    static func logCDF(_ z: Double, table: UnsafeBufferPointer<Double>) -> Double {
        if z >= 5 { return 0 }
        if z <= -8 { return -0.5 * z * z - log(-z) - 0.918_938_533_204_672_7 }
        let u = (z + 8) * 64
        let i = Int(u)
        let f = u - Double(i)
        return table[i] * (1 - f) + table[i + 1] * f
    }

    /// The variance of the standard normal's top `share` (0 < share < 1) against its whole, 1 − qλ − λ²
    /// (q = Φ⁻¹(share), λ = φ(q)/share): also how far that top part's mean moves when the whole
    /// moves by one — what a receiver that hears only the loud part of a level sees of it moving.
    static func topShareVariance(_ share: Double) -> Double {
        let q = quantile(share)
        let lambda = exp(-0.5 * q * q) / (2 * Double.pi).squareRoot() / share
        return min(1, max(0, 1 - q * lambda - lambda * lambda))
    }

    /// Φ⁻¹(p), for p in (0, 1): Acklam's rational approximation (relative error under 1.2·10⁻⁹),
    /// used where a share is turned into the level it corresponds to, once per calibration.
    static func quantile(_ p: Double) -> Double {
        precondition(p > 0 && p < 1, "a quantile of a probability strictly between 0 and 1")
        let a = [-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02, 1.383577518672690e+02,
                 -3.066479806614716e+01, 2.506628277459239e+00]
        let b = [-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02, 6.680131188771972e+01,
                 -1.328068155288572e+01]
        let c = [-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00, -2.549732539343734e+00,
                 4.374664141464968e+00, 2.938163982698783e+00]
        let d = [7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00, 3.754408661907416e+00]
        let low = 0.02425
        if p < low {
            let q = (-2 * log(p)).squareRoot()
            return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        if p > 1 - low { return -quantile(1 - p) }
        let q = p - 0.5, r = q * q
        return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
            / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}
