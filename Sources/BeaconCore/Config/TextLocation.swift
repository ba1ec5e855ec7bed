/// Where something is in a text file: a line and a column, both from 1, as compilers and editors
/// count them (`chain.json:12:7`). The column counts characters (Unicode scalars), not bytes, so
/// it matches the cursor position of an editor on a line with accented names.
public struct TextLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    // 32 bits each: a parsed document keeps one per value, and no config has 4 billion lines.
    private let storedLine: UInt32
    private let storedColumn: UInt32

    /// The line, from 1.
    public var line: Int { Int(storedLine) }
    /// The column on that line, from 1, in characters.
    public var column: Int { Int(storedColumn) }

    /// A location; values beyond 2^32 − 1 are clamped.
    public init(line: Int, column: Int) {
        storedLine = UInt32(clamping: line)
        storedColumn = UInt32(clamping: column)
    }

    /// `line:column`.
    public var description: String { "\(line):\(column)" }

    /// Earlier in the text first.
    public static func < (lhs: TextLocation, rhs: TextLocation) -> Bool {
        (lhs.storedLine, lhs.storedColumn) < (rhs.storedLine, rhs.storedColumn)
    }
}
