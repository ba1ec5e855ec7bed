/// A `--stores` value that does not parse.
public struct StoreSelectionError: Error, Sendable, CustomStringConvertible {
    /// The whole value.
    public let text: String
    /// The part that is wrong.
    public let part: String

    public var description: String {
        "--stores \"\(text)\": \"\(part)\" is not a store number or range (0–65535, e.g. 1-250,300)"
    }
}
