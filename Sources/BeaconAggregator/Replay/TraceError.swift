/// A trace that cannot be read, or one bad line of it.
public enum TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file cannot be opened.
    case cannotOpen(path: String, reason: String)
    /// A line is not `topic payload`.
    case badLine(line: Int, reason: String)
    /// Reading failed after `after` lines (a directory given as the trace, an I/O error).
    case unreadable(after: Int, reason: String)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason): return "cannot open trace \(path): \(reason)"
        case .badLine(let line, let reason): return "trace line \(line): \(reason); skipped"
        case .unreadable(let after, let reason): return "cannot read the trace after line \(after): \(reason)"
        }
    }
}
