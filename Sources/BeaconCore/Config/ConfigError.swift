/// One thing wrong with a configuration file (the chain config, an edge config), with the JSON path
/// where it is (`$.stores[1].sections[0].minor`) and, for an edge flag, the flag it came from.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    /// Where in the file: a JSON path from the root `$`.
    public var path: String
    /// What is wrong and, where it helps, what to do.
    public var message: String

    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}

/// A configuration that cannot be used: every issue found, not only the first, so one run explains
/// everything to fix. A program given one never starts half-working.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the config came from, when it came from one.
    public var file: String?
    /// Every issue, in file order.
    public var issues: [ConfigIssue]

    public init(file: String? = nil, issues: [ConfigIssue]) {
        self.file = file
        self.issues = issues
    }

    public var description: String {
        let head = "\(file ?? "config"): \(issues.count) problem\(issues.count == 1 ? "" : "s")"
        return ([head] + issues.map { "  \($0)" }).joined(separator: "\n")
    }
}
