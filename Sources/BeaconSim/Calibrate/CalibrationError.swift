/// A calibration walk that cannot be learnt from: the file and line at fault when there is one,
/// and what to do.
public struct CalibrationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file at fault (the truth, a trace), nil when the fault is the walk as a whole.
    public var file: String?
    /// Its 1-based line, when one line is at fault.
    public var line: Int?
    /// What is wrong, in words a person can act on.
    public var reason: String

    /// An error about `file` (at `line`).
    public init(file: String? = nil, line: Int? = nil, reason: String) {
        self.file = file
        self.line = line
        self.reason = reason
    }

    /// `file:line: reason`, as compilers write it, so editors can jump there.
    public var description: String {
        switch (file, line) {
        case let (file?, line?): "\(file):\(line): \(reason)"
        case let (file?, nil): "\(file): \(reason)"
        default: reason
        }
    }
}
