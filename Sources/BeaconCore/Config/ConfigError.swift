/// One thing wrong with a configuration file (the chain config, an edge config, a calibration
/// file), with the JSON path where it is (`$.stores[1].sections[0].minor`), the line and column
/// when it is in the file's text, and, for an edge flag or `--tuning`, where it came from instead.
public struct ConfigIssue: Sendable, Equatable, CustomStringConvertible {
    /// Where in the document: a JSON path from the root `$`.
    public var path: String
    /// What is wrong and, where it helps, what to do.
    public var message: String
    /// Where in the file's text; nil for a value that did not come from the file (a flag, an
    /// overlay) or a problem of the whole file.
    public var location: TextLocation?

    /// An issue at `path`, found at `location` in the file when known.
    public init(path: String, message: String, location: TextLocation? = nil) {
        self.path = path
        self.message = message
        self.location = location
    }

    /// `12:7: $.stores[0].major: message`, or without the location when there is none.
    public var description: String { (location.map { "\($0): " } ?? "") + "\(path): \(message)" }
}

/// A configuration that cannot be used: every issue found, not only the first, so one run explains
/// everything to fix — up to ``ConfigReader/defaultLimit`` of them, so that a huge broken file is
/// refused at once rather than explained line by line. A program given one never starts
/// half-working.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file the config came from, when it came from one.
    public var file: String?
    /// The issues, those found in the file's text in file order.
    public var issues: [ConfigIssue]
    /// Whether reading stopped at the limit of issues, so that there may be more.
    public var isIncomplete: Bool

    /// An error of `file` with `issues` (all of them unless `isIncomplete`).
    public init(file: String? = nil, issues: [ConfigIssue], isIncomplete: Bool = false) {
        self.file = file
        self.issues = issues
        self.isIncomplete = isIncomplete
    }

    /// A head line, then one line per issue as compilers write them
    /// (`chain.json:12:7: $.stores[0].major: …`), so that an editor jumps to each.
    public var description: String {
        let name = file ?? "config"
        let count = "\(issues.count) problem\(issues.count == 1 ? "" : "s")"
        let head = "\(name): " + (isIncomplete ? "\(count), the first found (reading stopped there: fix these and run again)" : count)
        let lines = issues.map { issue in
            "  \(name):" + (issue.location.map { "\($0):" } ?? "") + " \(issue.path): \(issue.message)"
        }
        return ([head] + lines).joined(separator: "\n")
    }
}
