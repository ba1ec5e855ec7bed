import Foundation

/// A small, fast, seedable generator (xoshiro256**), so the same seed gives the same run on every
/// machine — `SystemRandomNumberGenerator` cannot be seeded.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s: (UInt64, UInt64, UInt64, UInt64)

    /// Seeds the four words from SplitMix64, as the xoshiro authors recommend.
    public init(seed: UInt64) {
        var x = seed
        func next() -> UInt64 {
            x &+= 0x9E37_79B9_7F4A_7C15
            var z = x
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        s = (next(), next(), next(), next())
    }

    public mutating func next() -> UInt64 {
        let result = ((s.1 &* 5) << 7 | (s.1 &* 5) >> 57) &* 9
        let t = s.1 << 17
        s.2 ^= s.0
        s.3 ^= s.1
        s.1 ^= s.2
        s.0 ^= s.3
        s.2 ^= t
        s.3 = (s.3 << 45) | (s.3 >> 19)
        return result
    }

    /// A uniform double in [0, 1).
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A standard normal deviate (Box–Muller).
    public mutating func gaussian() -> Double {
        let u1 = max(unit(), 1e-300), u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * .pi * u2)
    }

    /// An exponential deviate with the given mean.
    public mutating func exponential(mean: Double) -> Double { -mean * log(max(unit(), 1e-300)) }

    /// A derived generator for an independent stream (one per device, per link), so that adding
    /// a shopper does not change every other shopper's randomness.
    public func fork(_ salt: UInt64) -> SeededRandom {
        SeededRandom(seed: s.0 ^ (salt &* 0x9E37_79B9_7F4A_7C15) ^ s.3)
    }
}
