/// Number conventions shared by every payload.
enum WireNumbers {
    /// Sequence numbers and counters: 0 … 2⁵³−1, so that every integer on the wire is exact in a
    /// JavaScript dashboard, and so that json-c's saturation of a huge integer is caught as out
    /// of range instead of passing as 2⁶⁴−1.
    static let countRange: ClosedRange<Int64> = 0...(1 << 53 - 1)

    /// Durations in milliseconds (`dwell_ms`, `lag_ms`): 0 … 2⁵³−1.
    static let durationRange: ClosedRange<Int64> = 0...(1 << 53 - 1)

    /// Accuracy in metres: beyond 1 km a BLE estimate means nothing.
    static let accuracyRange: ClosedRange<Double> = 0...1000

    /// Confidence: a probability.
    static let confidenceRange: ClosedRange<Double> = 0...1

    /// Rounds to `decimals` places, clamped into `bounds`, NaN to `bounds.lowerBound`. The result
    /// is `n / 10^decimals` for an integer `n`, exactly what parsing its decimal text returns, so a
    /// normalised value survives encode → decode unchanged.
    static func normalize(_ value: Double, decimals: Int, in bounds: ClosedRange<Double>) -> Double {
        guard !value.isNaN else { return bounds.lowerBound }
        let clamped = min(max(value, bounds.lowerBound), bounds.upperBound)
        let scale = power10(decimals)
        return (clamped * scale).rounded() / scale
    }

    /// An accuracy in metres as stored: centimetres, 0…1000, NaN meaning unknown (`nil`).
    static func accuracy(_ value: Double?) -> Double? {
        guard let value, !value.isNaN else { return nil }
        return normalize(value, decimals: 2, in: accuracyRange)
    }

    /// A confidence as stored: thousandths, 0…1, NaN as 0.
    static func confidence(_ value: Double) -> Double {
        normalize(value, decimals: 3, in: confidenceRange)
    }

    /// The shortest decimal text of a value with at most `decimals` places, always with a
    /// fraction digit so that consumers see a float: `2.35`, `0.9`, `1.0`. Never NaN or ∞
    /// (non-finite input is treated as 0, though normalised values never are).
    static func fixed(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "0.0" }
        let scale = power10(decimals)
        let scaled = Int64((abs(value) * scale).rounded())
        let divisor = Int64(scale)
        var fraction = String(scaled % divisor)
        fraction = String(repeating: "0", count: decimals - fraction.count) + fraction
        while fraction.count > 1, fraction.hasSuffix("0") { fraction.removeLast() }
        return (value < 0 && scaled != 0 ? "-" : "") + "\(scaled / divisor).\(fraction)"
    }

    /// A bound as plain text for messages: `1000` rather than `1000.0`.
    static func plain(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    private static func power10(_ decimals: Int) -> Double {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        return scale
    }
}
