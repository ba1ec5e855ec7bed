/// A dataset that cannot be imported: the file, the line when one is at fault, and why.
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file at fault, as given (a path).
    public var file: String
    /// Its 1-based line, nil when the fault is the whole file (missing, unreadable, empty).
    public var line: Int?
    /// What is wrong, in words a person can act on.
    public var reason: String

    /// An error about `file` (at `line`).
    public init(file: String, line: Int? = nil, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `file:line: reason`, as compilers write it, so editors can jump there.
    public var description: String { line.map { "\(file):\($0): \(reason)" } ?? "\(file): \(reason)" }
}
