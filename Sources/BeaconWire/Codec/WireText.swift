import BeaconCore

/// Text conventions shared by every payload: how long free-text fields may be, and the checks
/// for structured strings.
enum WireText {
    /// Store and section names, in bytes (``WireBounds/maxNameBytes``, which the chain config holds too).
    static let maxNameLength = WireBounds.maxNameBytes
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
    /// A status's problem report (`snapshot_error.reason`), in bytes.
    static let maxProblemLength = 256
    /// A reject's payload prefix as text, in bytes (256 payload bytes, each at most 3 bytes
    /// once an invalid one is replaced by U+FFFD).
    static let maxPrefixLength = 1024

    /// `text` cut to at most `limit` UTF-8 bytes at a character boundary, so that what an encoder
    /// writes its decoder accepts.
    static func truncated(_ text: String, to limit: Int) -> Substring {
        guard text.utf8.count > limit else { return text[...] }
        var end = text.startIndex
        var bytes = 0
        for index in text.indices {
            bytes += text[index].utf8.count
            guard bytes <= limit else { break }
            end = text.index(after: index)
        }
        return text[..<end]
    }

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
