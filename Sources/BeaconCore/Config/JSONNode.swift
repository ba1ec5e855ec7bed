/// One value of a JSON document as the config readers see it: what it is and where it starts in
/// the text, so that every problem found in it can be named by line and column.
///
/// Objects keep their members in file order, each key once (``JSONDocument`` reports a repeated
/// key and keeps the first value). Numbers are `Double`s: a config's integers are checked to be
/// whole and within ±2^53, where a double holds every whole value exactly.
public struct JSONNode: Sendable {
    /// What a value is.
    public enum Value: Sendable {
        /// `null`.
        case null
        /// `true` or `false`.
        case bool(Bool)
        /// A number (beyond ±1.8e308 it is infinite, and every range refuses it).
        case number(Double)
        /// A string, unescaped.
        case string(String)
        /// An array.
        case array([JSONNode])
        /// An object: its members in file order, each key once.
        case object([JSONMember])
    }

    /// The value.
    public var value: Value
    /// Where it starts in the text; nil for a value that came from elsewhere (a command-line flag).
    public var location: TextLocation?

    /// A value, found at `location` when it came from a text.
    public init(_ value: Value, at location: TextLocation? = nil) {
        self.value = value
        self.location = location
    }

    /// The member `key` of an object; nil for a missing key or a value that is not an object.
    public subscript(key: String) -> JSONNode? {
        guard case .object(let members) = value else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// The node at a JSON path of the form the readers write (`$.stores[0].sections[1].minor`),
    /// or nil where there is none: to place a problem found after reading (a duplicate store, a
    /// gateway in no section) back in the text.
    public func node(at path: String) -> JSONNode? {
        var rest = Substring(path)
        guard rest.hasPrefix("$") else { return nil }
        rest = rest.dropFirst()
        var node = self
        while let first = rest.first {
            if first == "." {
                rest = rest.dropFirst()
                let key = rest.prefix { $0 != "." && $0 != "[" }
                rest = rest.dropFirst(key.count)
                guard let member = node[String(key)] else { return nil }
                node = member
            } else if first == "[" {
                let digits = rest.dropFirst().prefix { $0 != "]" }
                rest = rest.dropFirst(digits.count + 2)
                guard case .array(let items) = node.value, let index = Int(digits), items.indices.contains(index) else { return nil }
                node = items[index]
            } else {
                return nil
            }
        }
        return node
    }

    /// The same value with no location, nor any inside it: for values laid over a file from
    /// elsewhere, whose positions are not the file's.
    public func withoutLocations() -> JSONNode {
        switch value {
        case .array(let items):
            return JSONNode(.array(items.map { $0.withoutLocations() }))
        case .object(let members):
            return JSONNode(.object(members.map { JSONMember(key: $0.key, value: $0.value.withoutLocations()) }))
        default:
            return JSONNode(value)
        }
    }

    /// The value in a few words for a message: a short value as written (`"3"`, `12.5`, `true`),
    /// a container by its kind (`an array`), a long string cut.
    public var summary: String {
        switch value {
        case .null: return "null"
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number): return Self.text(of: number)
        case .string(let text):
            let shown = text.count > 40 ? String(text.prefix(40)) + "…" : text
            return "\"" + shown.unicodeScalars.map { $0.value < 0x20 || $0 == "\"" || $0 == "\\" ? $0.escaped(asASCII: true) : String($0) }.joined() + "\""
        case .array(let items): return items.isEmpty ? "an empty array" : "an array"
        case .object(let members): return members.isEmpty ? "an empty object" : "an object"
        }
    }

    /// A number as a person writes it: whole numbers without a fraction (`70000`, not `70000.0`).
    public static func text(of number: Double) -> String {
        if number.isInfinite { return number < 0 ? "a number below -1.8e308" : "a number above 1.8e308" }
        if number.rounded() == number, abs(number) < 9_007_199_254_740_992 { return String(Int64(number)) }
        return "\(number)"
    }
}

/// One member of a JSON object: its key, where the key is written, and its value.
public struct JSONMember: Sendable {
    /// The key, unescaped.
    public var key: String
    /// Where the key starts in the text (its opening quote); nil for a member from elsewhere.
    public var keyLocation: TextLocation?
    /// The value.
    public var value: JSONNode

    /// A member.
    public init(key: String, at keyLocation: TextLocation? = nil, value: JSONNode) {
        self.key = key
        self.keyLocation = keyLocation
        self.value = value
    }
}
