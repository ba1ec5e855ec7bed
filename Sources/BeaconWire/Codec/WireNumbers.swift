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

/// Text conventions shared by every payload: how long free-text fields may be, and the checks
/// for structured strings.
enum WireText {
    /// Store and section names, in bytes.
    static let maxNameLength = 128
    /// Software versions and adapter names, in bytes.
    static let maxVersionLength = 64
    /// An aggregator's `stores` list, in bytes.
    static let maxStoresLength = 1024
    /// A reject's topic: MQTT's own limit.
    static let maxTopicLength = 65535
    /// A reject's reason code and field path, in bytes.
    static let maxCodeLength = 64
    static let maxFieldLength = 256
    /// A reject's detail message, in bytes.
    static let maxDetailLength = 4096
    /// A reject's payload prefix as text, in bytes (256 payload bytes, each at most 3 bytes
    /// once an invalid one is replaced by U+FFFD).
    static let maxPrefixLength = 1024

    /// Whether `text` is a UUID in the 8-4-4-4-12 hex form (either case).
    static func isUUID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 36 else { return false }
        for (index, byte) in bytes.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                guard byte == UInt8(ascii: "-") else { return false }
            } else {
                let hex = (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
                    || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
                guard hex else { return false }
            }
        }
        return true
    }

    /// Whether `text` is a list of stores and store ranges such as `1-250,300`: comma-separated
    /// decimals 0–65535 (no leading zeros) or `low-high` pairs with low ≤ high.
    static func isStoreList(_ text: String) -> Bool {
        guard !text.isEmpty else { return false }
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let ends = item.split(separator: "-", omittingEmptySubsequences: false)
            guard ends.count == 1 || ends.count == 2 else { return false }
            let numbers = ends.map { storeNumber($0) }
            guard numbers.allSatisfy({ $0 != nil }) else { return false }
            if numbers.count == 2, numbers[0]! > numbers[1]! { return false }
        }
        return true
    }

    private static func storeNumber(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 5, text == "0" || text.first != "0",
            text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
            let value = Int(text), value <= Int(UInt16.max)
        else { return nil }
        return value
    }
}
