/// The recursive-descent parser behind ``JSONDocument``: one pass over the bytes, keeping the
/// line and column of the current position (JSON has line ends only between tokens, and
/// multi-byte characters only inside strings, so both are counted where they occur), and the path
/// of the current value for the keys it finds repeated.
struct JSONParser {
    /// One step of the path from the root to the value being read.
    enum Step {
        case key(String)
        case index(Int)
    }

    let bytes: [UInt8]
    var index = 0
    /// The current line, from 1, and the index of its first byte.
    var line = 1
    var lineStart = 0
    /// UTF-8 continuation bytes between ``lineStart`` and ``index``: bytes that are not characters.
    var lineContinuations = 0
    var depth = 0
    var path: [Step] = []
    var repeatedKeys: [ConfigIssue] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Where the parser is.
    var location: TextLocation { TextLocation(line: line, column: index - lineStart - lineContinuations + 1) }

    /// The byte at the parser, nil at the end.
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    /// The whole text as one value, surrounded by nothing but white space.
    mutating func document() throws(JSONSyntaxError) -> JSONNode {
        // A byte order mark some editors write: not a character of the first line.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3
            lineContinuations = 3
        }
        skipSpace()
        guard current != nil else { throw fail("the text is empty: a JSON document is one value, e.g. {}") }
        let root = try value()
        skipSpace()
        guard current == nil else { throw fail("text after the end of the document, found \(found)") }
        return root
    }

    mutating func skipSpace() {
        while let byte = current {
            switch byte {
            case 0x0A:
                index += 1
                line += 1
                lineStart = index
                lineContinuations = 0
            case 0x20, 0x09, 0x0D:
                index += 1
            default:
                return
            }
        }
    }

    /// One value, at its first byte.
    mutating func value() throws(JSONSyntaxError) -> JSONNode {
        let start = location
        guard let byte = current else { throw fail("the text ends where a value should be") }
        switch byte {
        case UInt8(ascii: "{"): return JSONNode(.object(try object()), at: start)
        case UInt8(ascii: "["): return JSONNode(.array(try array()), at: start)
        case UInt8(ascii: "\""): return JSONNode(.string(try string()), at: start)
        case UInt8(ascii: "t"): try literal("true"); return JSONNode(.bool(true), at: start)
        case UInt8(ascii: "f"): try literal("false"); return JSONNode(.bool(false), at: start)
        case UInt8(ascii: "n"): try literal("null"); return JSONNode(.null, at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(.number(try number()), at: start)
        default: throw fail("expected a value (a string, a number, an object, an array, true, false or null), found \(found)")
        }
    }

    mutating func object() throws(JSONSyntaxError) -> [JSONMember] {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [JSONMember] = []
        var keys: Set<String> = []
        skipSpace()
        if current == UInt8(ascii: "}") {
            index += 1
            return members
        }
        while true {
            skipSpace()
            let keyStart = location
            guard current == UInt8(ascii: "\"") else {
                throw fail(current == UInt8(ascii: "}") ? "a comma before '}': JSON allows none after the last member"
                    : "expected a key in double quotes, found \(found)")
            }
            let key = try string()
            skipSpace()
            guard current == UInt8(ascii: ":") else { throw fail("expected ':' after the key \"\(key)\", found \(found)") }
            index += 1
            skipSpace()
            // Small objects are searched; a large one keeps its keys in a set.
            let repeated: Bool
            if members.count < 16 {
                repeated = members.contains { $0.key == key }
            } else {
                if keys.isEmpty { keys = Set(members.map(\.key)) }
                repeated = !keys.insert(key).inserted
            }
            path.append(.key(key))
            if repeated {
                repeatedKeys.append(ConfigIssue(
                    path: renderedPath, message: "is given twice in the same object; only one of the values would be used, so remove the other",
                    location: keyStart))
            }
            let item = try value()
            path.removeLast()
            if !repeated { members.append(JSONMember(key: key, at: keyStart, value: item)) }
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return members
            default: throw fail("expected ',' or '}' after the member \"\(key)\", found \(found)")
            }
        }
    }

    mutating func array() throws(JSONSyntaxError) -> [JSONNode] {
        try enter()
        defer { depth -= 1 }
        index += 1
        var items: [JSONNode] = []
        skipSpace()
        if current == UInt8(ascii: "]") {
            index += 1
            return items
        }
        path.append(.index(0))
        defer { path.removeLast() }
        while true {
            skipSpace()
            if current == UInt8(ascii: "]") { throw fail("a comma before ']': JSON allows none after the last item") }
            path[path.count - 1] = .index(items.count)
            items.append(try value())
            skipSpace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return items
            default: throw fail("expected ',' or ']' after an item of the array, found \(found)")
            }
        }
    }

    /// One level deeper, within ``JSONDocument/maxDepth``.
    mutating func enter() throws(JSONSyntaxError) {
        guard depth < JSONDocument.maxDepth else { throw fail("nested deeper than \(JSONDocument.maxDepth) levels") }
        depth += 1
    }

    mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes[index...].starts(with: expected) else {
            throw fail("expected a value (a string, a number, an object, an array, true, false or null), found \(found)")
        }
        index += expected.count
    }

    /// The path of the value being read, `$.stores[0].sections`.
    var renderedPath: String {
        path.reduce(into: "$") { text, step in
            switch step {
            case .key(let key): text += ".\(key)"
            case .index(let index): text += "[\(index)]"
            }
        }
    }

    /// What is at the parser, for a message: the token that starts there, or the end.
    var found: String {
        guard let byte = current else { return "the end of the text" }
        if byte >= 0x80 { return "a character that is not ASCII, outside a string" }
        if byte < 0x20 || byte == 0x7F { return "the control character U+00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16, uppercase: true) }
        let token = bytes[index...].prefix { $0 > 0x20 && $0 < 0x7F && !"{}[],:\"".utf8.contains($0) }.prefix(12)
        return "'" + (token.isEmpty ? String(UnicodeScalar(byte)) : String(decoding: token, as: UTF8.self)) + "'"
    }

    /// The error of text that stops being JSON here.
    func fail(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(message: message, location: location, repeatedKeys: repeatedKeys)
    }
}
