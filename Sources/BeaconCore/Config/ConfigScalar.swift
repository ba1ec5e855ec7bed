/// A type a config value can be read as directly: a string, true or false, a number, an integer.
public protocol ConfigScalar {
    /// How a message names the JSON it takes: `an integer`.
    static var expected: String { get }
    /// The value of `node`; throws when it is not one, with a message for anything more than
    /// the wrong type (an integer that is not whole).
    static func read(_ node: JSONNode) throws(ConfigMismatch) -> Self
}

/// A value that is not of the type a key takes.
public struct ConfigMismatch: Error, Sendable {
    /// What is wrong, when there is more to say than "has the wrong type"; nil for that.
    public var message: String?

    /// A mismatch; nil `message` for the wrong JSON type.
    public init(_ message: String? = nil) {
        self.message = message
    }
}

extension String: ConfigScalar {
    /// `a string`.
    public static var expected: String { "a string" }
    /// A JSON string.
    public static func read(_ node: JSONNode) throws(ConfigMismatch) -> String {
        guard case .string(let text) = node.value else { throw ConfigMismatch() }
        return text
    }
}

extension Bool: ConfigScalar {
    /// `true or false`.
    public static var expected: String { "true or false" }
    /// `true` or `false`.
    public static func read(_ node: JSONNode) throws(ConfigMismatch) -> Bool {
        guard case .bool(let flag) = node.value else { throw ConfigMismatch() }
        return flag
    }
}

extension Double: ConfigScalar {
    /// `a number`.
    public static var expected: String { "a number" }
    /// Any JSON number; one beyond ±1.8e308 is refused.
    public static func read(_ node: JSONNode) throws(ConfigMismatch) -> Double {
        guard case .number(let number) = node.value else { throw ConfigMismatch() }
        guard number.isFinite else { throw ConfigMismatch("is \(node.summary), beyond any number a config can use") }
        return number
    }
}

extension Int: ConfigScalar {
    /// `an integer`.
    public static var expected: String { "an integer" }
    /// A JSON number with a whole value within ±2^53, where a JSON number stops holding every
    /// whole value (`12`, and `12.0` or `1.2e1` too).
    public static func read(_ node: JSONNode) throws(ConfigMismatch) -> Int {
        guard case .number(let number) = node.value else { throw ConfigMismatch() }
        guard number.rounded() == number, abs(number) < 9_007_199_254_740_992 else {
            throw ConfigMismatch("\(node.summary) is not a whole number (within ±2^53)")
        }
        return Int(number)
    }
}
