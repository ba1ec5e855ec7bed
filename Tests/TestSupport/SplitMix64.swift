/// SplitMix64: a small, seeded generator, so a test draws the same numbers on every run and a
/// failing iteration can be replayed exactly.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

extension SplitMix64 {
    /// One of `values`, each as likely as the others.
    public mutating func pick<T>(_ values: [T]) -> T { values[Int(next() % UInt64(values.count))] }

    /// True with probability `p` (to a millionth).
    public mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }
}
