/// UTF-8 validation of a whole payload before json-c sees it.
///
/// json-c can validate UTF-8 itself (`JSON_TOKENER_VALIDATE_UTF8`), one byte at a time inside its
/// tokener, which costs about 13 % of a batch's parse time. Payloads are almost all ASCII, so
/// this checks eight bytes per step and only walks the multi-byte sequences it meets, with the
/// same rules (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF). JSON is
/// UTF-8 as a whole (RFC 8259), so checking every byte, not only string contents, is right.
enum UTF8Validation {
    /// The offset of the first byte that is not valid UTF-8, or nil when all are.
    static func firstInvalidOffset(_ bytes: UnsafeRawBufferPointer) -> Int? {
        let count = bytes.count
        var i = 0
        while i < count {
            // ASCII fast path: eight bytes with no high bit.
            while i + 8 <= count, bytes.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                i += 8
            }
            guard i < count else { return nil }
            let lead = bytes[i]
            if lead < 0x80 {
                i += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80, high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: return i
            }
            guard i + length <= count else { return i }
            let second = bytes[i + 1]
            guard second >= low && second <= high else { return i }
            for k in 2..<length where bytes[i + k] & 0xC0 != 0x80 { return i }
            i += length
        }
        return nil
    }
}
