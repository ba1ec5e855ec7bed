extension JSONParser {
    /// A string at its opening quote, unescaped. A lone UTF-16 surrogate escape becomes U+FFFD,
    /// as Swift strings hold only whole characters.
    mutating func string() throws(JSONSyntaxError) -> String {
        let opening = location
        index += 1
        let start = index
        // Most strings have no escape: their bytes are the text.
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try text(bytes[start..<index - 1], startingAt: opening)
            case UInt8(ascii: "\\"):
                return try escapedString(from: start, startingAt: opening)
            case 0x00..<0x20:
                throw controlCharacter(byte)
            default:
                if byte & 0xC0 == 0x80 { lineContinuations += 1 }
                index += 1
            }
        }
        throw JSONSyntaxError(message: "a string that never ends (no closing '\"')", location: opening, repeatedKeys: repeatedKeys)
    }

    /// The rest of a string from its first escape; `start` is the first byte after the quote.
    private mutating func escapedString(from start: Int, startingAt opening: TextLocation) throws(JSONSyntaxError) -> String {
        var utf8 = Array(bytes[start..<index])
        var pendingHigh: UInt16?
        func flushSurrogate() {
            if pendingHigh != nil { utf8 += [0xEF, 0xBF, 0xBD] }
            pendingHigh = nil
        }
        while let byte = current {
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                flushSurrogate()
                return try text(utf8[...], startingAt: opening)
            case UInt8(ascii: "\\"):
                let escape = location
                index += 1
                guard let letter = current else { break }
                index += 1
                if letter == UInt8(ascii: "u") {
                    let unit = try hexUnit(at: escape)
                    if let high = pendingHigh, (0xDC00...0xDFFF).contains(unit) {
                        let scalar = 0x10000 + (UInt32(high - 0xD800) << 10) + UInt32(unit - 0xDC00)
                        utf8 += Array(String(Character(Unicode.Scalar(scalar) ?? "\u{FFFD}")).utf8)
                        pendingHigh = nil
                    } else {
                        flushSurrogate()
                        if (0xD800...0xDBFF).contains(unit) {
                            pendingHigh = unit
                        } else {
                            utf8 += Array(String(Character(Unicode.Scalar(UInt32(unit)) ?? "\u{FFFD}")).utf8)
                        }
                    }
                    continue
                }
                flushSurrogate()
                guard let unescaped = Self.unescaped(letter) else {
                    let shown = letter < 0x80 && letter >= 0x20 ? String(UnicodeScalar(letter)) : "?"
                    throw JSONSyntaxError(message: "'\\\(shown)' is not an escape JSON knows (\\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)",
                                          location: escape, repeatedKeys: repeatedKeys)
                }
                utf8.append(unescaped)
            case 0x00..<0x20:
                throw controlCharacter(byte)
            default:
                flushSurrogate()
                if byte & 0xC0 == 0x80 { lineContinuations += 1 }
                utf8.append(byte)
                index += 1
            }
        }
        throw JSONSyntaxError(message: "a string that never ends (no closing '\"')", location: opening, repeatedKeys: repeatedKeys)
    }

    /// The byte a one-letter escape (`\n`) stands for; nil for a letter JSON has no escape for.
    static func unescaped(_ letter: UInt8) -> UInt8? {
        switch letter {
        case UInt8(ascii: "b"): return 0x08
        case UInt8(ascii: "f"): return 0x0C
        case UInt8(ascii: "n"): return 0x0A
        case UInt8(ascii: "r"): return 0x0D
        case UInt8(ascii: "t"): return 0x09
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return letter
        default: return nil
        }
    }

    /// The four hex digits after `\u`.
    private mutating func hexUnit(at escape: TextLocation) throws(JSONSyntaxError) -> UInt16 {
        guard index + 4 <= bytes.count, bytes[index..<index + 4].allSatisfy({ Self.hexDigit($0) != nil }) else {
            throw JSONSyntaxError(message: "'\\u' must be followed by four hex digits", location: escape, repeatedKeys: repeatedKeys)
        }
        let unit = bytes[index..<index + 4].reduce(UInt16(0)) { $0 << 4 | UInt16(Self.hexDigit($1) ?? 0) }
        index += 4
        return unit
    }

    static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// `utf8` as text, refused where it is not UTF-8.
    private func text(_ utf8: ArraySlice<UInt8>, startingAt opening: TextLocation) throws(JSONSyntaxError) -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else {
            throw JSONSyntaxError(message: "a string that is not UTF-8 text", location: opening, repeatedKeys: repeatedKeys)
        }
        return text
    }

    private func controlCharacter(_ byte: UInt8) -> JSONSyntaxError {
        let name = byte == 0x0A ? "a line end" : byte == 0x09 ? "a tab" : "a control character"
        return fail("\(name) inside a string: write it as an escape (\\n, \\t, \\u00XX), or close the string with '\"'")
    }

    /// A number at its first byte, as JSON writes them: `-`, digits without a leading zero, an
    /// optional fraction and exponent. One beyond ±1.8e308 is infinite.
    mutating func number() throws(JSONSyntaxError) -> Double {
        let start = index, opening = location
        func digits() -> Int {
            let first = index
            while let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") { index += 1 }
            return index - first
        }
        if current == UInt8(ascii: "-") { index += 1 }
        if current == UInt8(ascii: "0") {
            index += 1
            if let byte = current, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") {
                throw fail("a number with a leading zero: JSON numbers are decimal, write it without")
            }
        } else if digits() == 0 {
            throw fail("expected a digit after '-', found \(found)")
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard digits() > 0 else { throw fail("expected a digit after the decimal point, found \(found)") }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard digits() > 0 else { throw fail("expected the exponent's digits, found \(found)") }
        }
        // Double's parser takes all of JSON's grammar (and more, which the checks above refuse).
        guard let number = Double(String(decoding: bytes[start..<index], as: UTF8.self)) else {
            throw JSONSyntaxError(message: "a number that cannot be read", location: opening, repeatedKeys: repeatedKeys)
        }
        return number
    }
}
