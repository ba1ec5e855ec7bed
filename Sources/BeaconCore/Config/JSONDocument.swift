/// A JSON text read into ``JSONNode``s that know their line and column: what every config reader
/// (chain, edge, calibration, the simulator's truth and zoning files) parses first.
///
/// Strict JSON (RFC 8259): no comments, no trailing commas, strings in valid UTF-8 without raw
/// control characters; a UTF-8 byte order mark at the start is skipped. A key given twice in one
/// object is reported in ``repeatedKeys`` with its path — JSON parsers keep one of the values
/// without a word, so a config with `"dwell_s": 2` and later `"dwell_s": 5` would run on a value
/// its author may not have meant — and the first value is kept.
public struct JSONDocument: Sendable {
    /// The deepest nesting read: far deeper than any config, shallow enough for the stack.
    public static let maxDepth = 256

    /// The document's value.
    public var root: JSONNode
    /// Each key that repeats an earlier key of its object, at its path and location, in file
    /// order. Keys compare after unescaping (`"a"` and `"\u0061"` are the same key).
    public var repeatedKeys: [ConfigIssue]

    /// Parses `bytes`; throws where the text stops being JSON, with the keys repeated before.
    public init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        var parser = JSONParser(bytes: bytes)
        root = try parser.document()
        repeatedKeys = parser.repeatedKeys
    }
}

/// Text that is not JSON: what was expected, where, and the keys found repeated before the fault.
public struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, e.g. `expected ',' or '}' after a member, found '"'`.
    public var message: String
    /// Where: the first character that is not what JSON allows there.
    public var location: TextLocation
    /// Keys repeated in the text before the fault.
    public var repeatedKeys: [ConfigIssue]

    /// A fault at `location`.
    public init(message: String, location: TextLocation, repeatedKeys: [ConfigIssue] = []) {
        self.message = message
        self.location = location
        self.repeatedKeys = repeatedKeys
    }

    /// The fault as a config issue at the root, `not valid JSON: …`, placed at its location.
    public var issue: ConfigIssue { ConfigIssue(path: "$", message: "not valid JSON: \(message)", location: location) }

    /// `line:column: message`.
    public var description: String { "\(location): \(message)" }
}
