/// Why a text is not a valid identity (gateway id, device id, topic level).
public enum IdentityError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The text was empty; `kind` names what it should have been.
    case empty(kind: String)
    /// The text is longer than the bound for its kind.
    case tooLong(kind: String, length: Int, limit: Int)
    /// The text breaks the alphabet or shape of its kind; `rule` says how.
    case badFormat(kind: String, text: String, rule: String)

    public var description: String {
        switch self {
        case .empty(let kind): return "\(kind) is empty"
        case .tooLong(let kind, let length, let limit):
            return "\(kind) is \(length) bytes long, the limit is \(limit)"
        case .badFormat(let kind, let text, let rule):
            return "\(kind) \(Self.printable(text)) is invalid: \(rule)"
        }
    }

    /// Quotes a text with control characters, line separators and bidirectional controls
    /// escaped, truncated, so a log line stays one line and reads in its own order.
    static func printable(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars.prefix(80) {
            out += DisplayName.unfit(scalar) == nil ? String(scalar) : scalar.escaped(asASCII: true)
        }
        return out + (text.unicodeScalars.count > 80 ? "…\"" : "\"")
    }
}
