/// One thing wrong with an edge config: where (a JSON path such as `$.broker.port`, and the flag
/// when the value came from one) and why.
public struct EdgeConfigIssue: Sendable, Equatable, CustomStringConvertible {
    /// A JSON path from the root `$`.
    public var path: String
    /// What is wrong and, where it helps, what to do.
    public var message: String

    /// Makes an issue.
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    /// `$.broker.port: must be 1–65535, got 0`.
    public var description: String { "\(path): \(message)" }
}

/// An edge config that cannot be used, with every problem found (not only the first), so one run
/// explains everything to fix. beacon-edge exits non-zero with it before connecting to anything.
public struct EdgeConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The config file, when there was one.
    public var file: String?
    /// Every issue, in the order the keys are checked.
    public var issues: [EdgeConfigIssue]

    /// Makes an error.
    public init(file: String?, issues: [EdgeConfigIssue]) {
        self.file = file
        self.issues = issues
    }

    /// A header line and one line per issue.
    public var description: String {
        let head = "\(file ?? "edge config"): \(issues.count) problem\(issues.count == 1 ? "" : "s")"
        return ([head] + issues.map { "  \($0)" }).joined(separator: "\n")
    }
}
