/// Keys given twice in one object of a JSON text. JSON parsers (json-c, Foundation's) keep one of
/// the values without a word, so a config with `"dwell_s": 2` and later `"dwell_s": 5` in the same
/// object would run on a value its author may not have meant; the config loaders report each
/// repeat instead, with its path.
public enum DuplicateKeys {
    /// Each key that repeats an earlier key of its object, as an issue at its path
    /// (`$.stores[0].sections[1].minor`). Keys are compared after unescaping (`"a"` and `"\u0061"`
    /// are the same key). Text that is not valid JSON yields what was found before the fault: the
    /// parser reports the fault itself.
    public static func find(in bytes: [UInt8]) -> [ConfigIssue] {
        var scanner = Scanner(bytes: bytes)
        _ = scanner.value(path: "$", depth: 0)
        return scanner.found
    }

    private struct Scanner {
        let bytes: [UInt8]
        var index = 0
        var found: [ConfigIssue] = []

        init(bytes: [UInt8]) {
            self.bytes = bytes
        }

        /// Deeper than any config; a pathological text stops the scan rather than the stack.
        static let maxDepth = 256

        var current: UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
        }

        /// Reads one value; false where the text stops being JSON.
        mutating func value(path: String, depth: Int) -> Bool {
            guard depth < Self.maxDepth else { return false }
            skipSpace()
            switch current {
            case UInt8(ascii: "{"):
                index += 1
                var seen: Set<String> = []
                skipSpace()
                if current == UInt8(ascii: "}") {
                    index += 1
                    return true
                }
                while true {
                    skipSpace()
                    guard current == UInt8(ascii: "\""), let key = string() else { return false }
                    skipSpace()
                    guard current == UInt8(ascii: ":") else { return false }
                    index += 1
                    let member = "\(path).\(key)"
                    if !seen.insert(key).inserted {
                        found.append(ConfigIssue(path: member, message: "is given twice in the same object; only one of the values would be used, so remove the other"))
                    }
                    guard value(path: member, depth: depth + 1) else { return false }
                    skipSpace()
                    switch current {
                    case UInt8(ascii: ","): index += 1
                    case UInt8(ascii: "}"): index += 1; return true
                    default: return false
                    }
                }
            case UInt8(ascii: "["):
                index += 1
                skipSpace()
                if current == UInt8(ascii: "]") {
                    index += 1
                    return true
                }
                var item = 0
                while true {
                    guard value(path: "\(path)[\(item)]", depth: depth + 1) else { return false }
                    item += 1
                    skipSpace()
                    switch current {
                    case UInt8(ascii: ","): index += 1
                    case UInt8(ascii: "]"): index += 1; return true
                    default: return false
                    }
                }
            case UInt8(ascii: "\""):
                return string() != nil
            case nil:
                return false
            default:
                // A number, true, false or null: up to the next delimiter.
                let start = index
                while let byte = current, !Self.delimiters.contains(byte) { index += 1 }
                return index > start
            }
        }

        static let delimiters: Set<UInt8> = [0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}")]

        /// Reads a string at its opening quote, unescaped; nil where it is not one.
        mutating func string() -> String? {
            index += 1
            var utf8: [UInt8] = []
            var pendingHigh: UInt16?
            func append(scalar value: UInt32) {
                utf8.append(contentsOf: String(Character(Unicode.Scalar(value) ?? "\u{FFFD}")).utf8)
            }
            while let byte = current {
                index += 1
                if byte == UInt8(ascii: "\"") {
                    if pendingHigh != nil { append(scalar: 0xFFFD) }
                    return String(decoding: utf8, as: UTF8.self)
                }
                guard byte == UInt8(ascii: "\\") else {
                    if pendingHigh != nil { append(scalar: 0xFFFD); pendingHigh = nil }
                    utf8.append(byte)
                    continue
                }
                guard let escape = current else { return nil }
                index += 1
                if escape == UInt8(ascii: "u") {
                    guard index + 4 <= bytes.count,
                          let unit = UInt16(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16) else { return nil }
                    index += 4
                    if let high = pendingHigh, (0xDC00...0xDFFF).contains(unit) {
                        append(scalar: 0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(unit - 0xDC00))
                        pendingHigh = nil
                    } else {
                        if pendingHigh != nil { append(scalar: 0xFFFD) }
                        pendingHigh = (0xD800...0xDBFF).contains(unit) ? unit : nil
                        if pendingHigh == nil { append(scalar: UInt32(unit)) }
                    }
                    continue
                }
                if pendingHigh != nil { append(scalar: 0xFFFD); pendingHigh = nil }
                switch escape {
                case UInt8(ascii: "b"): utf8.append(0x08)
                case UInt8(ascii: "f"): utf8.append(0x0C)
                case UInt8(ascii: "n"): utf8.append(0x0A)
                case UInt8(ascii: "r"): utf8.append(0x0D)
                case UInt8(ascii: "t"): utf8.append(0x09)
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(escape)
                default: return nil
                }
            }
            return nil
        }
    }
}
