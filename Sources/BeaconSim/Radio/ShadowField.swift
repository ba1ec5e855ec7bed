import BeaconEngine
import Foundation

/// Shadowing that belongs to a place, not a moment: per gateway, a Gaussian random field over
/// the floor (walls, shelves and furniture between that gateway and each spot), so a phone
/// standing still keeps its error and one walking past a spot meets the same error again.
///
/// Real radio has one — on the Kolakowski flat a link's 5 s mean misses a path-loss fit by
/// 4.3 dB of a place-bound error with a correlation length of about 1.5 m (docs/MEASUREMENTS.md,
/// "How the simulator's radio was fixed") — and it is what averaging over time cannot remove.
/// Drawn with random Fourier features: `σ·√(2/M)·Σ cos(ω·x + φ)` with ω ~ N(0, 1/ℓ²) per axis
/// has covariance σ²·e^(−d²/(2ℓ²)) at distance d.
struct ShadowField: Sendable {
    private struct Feature: Sendable {
        var x: Double
        var y: Double
        var phase: Double
    }

    private let features: [[Feature]]
    private let scale: Double

    /// Features per gateway: enough for a smooth field, cheap per advert.
    static let featureCount = 24

    init(gateways: Int, sigma: Double, length: Double, seed: UInt64) {
        var random = SeededRandom(seed: seed ^ 0x5EED_F1E1_D000_0000)
        let frequency = 1 / max(length, 0.05)
        features = (0..<gateways).map { _ in
            (0..<Self.featureCount).map { _ in
                Feature(x: random.gaussian() * frequency, y: random.gaussian() * frequency, phase: random.unit() * 2 * .pi)
            }
        }
        scale = sigma * (2 / Double(Self.featureCount)).squareRoot()
    }

    /// The field of gateway `gateway` at `point`, dB.
    func value(gateway: Int, at point: Chain.Point) -> Double {
        guard scale > 0 else { return 0 }
        var sum = 0.0
        for f in features[gateway] { sum += cos(f.x * point.x + f.y * point.y + f.phase) }
        return scale * sum
    }
}
