/// Reads a parsed config document into typed values and keeps every problem found on the way,
/// each with its JSON path and, where the value came from the file's text, its line and column.
///
/// The typed reads are on ``ConfigValue`` and ``ConfigObject``; they report into the reader and
/// return nil where a value cannot be used, so one pass finds every problem rather than the first.
/// Problems come in two kinds: with the document's keys (unknown, repeated), after which the
/// values read are still the file's, and with a value (wrong type, missing, out of range), after
/// which they are not — ``valuesAreUsable`` tells which, so that the checks across values
/// (duplicates, references) run only on values read as written, and their problems are listed
/// after the reading's.
///
/// After ``limit`` problems the reader stops listing them and the arrays stop being read: a huge
/// broken file is refused at once, with its first problems.
///
/// One reader reads one document, on one thread: a config loader makes one, reads, and throws
/// its ``error(file:)``.
public final class ConfigReader {
    /// How many problems a reader lists before it stops.
    public static let defaultLimit = 20

    /// How many problems this reader lists before it stops.
    public let limit: Int
    /// The problems found while reading, in the order found.
    public private(set) var readingIssues: [ConfigIssue]
    /// The problems found by checks across the values read, in their order.
    public private(set) var checkIssues: [ConfigIssue] = []
    /// Whether no value so far was unusable (only keys unknown or repeated, if anything).
    public private(set) var valuesAreUsable = true
    /// Whether a problem was found past the limit and left out, or reading stopped there.
    public internal(set) var isIncomplete = false

    /// A reader that starts with `repeatedKeys` (a document's).
    public init(repeatedKeys: [ConfigIssue] = [], limit: Int = defaultLimit) {
        self.limit = limit
        readingIssues = Array(repeatedKeys.prefix(limit))
        isIncomplete = repeatedKeys.count > limit
    }

    /// Parses `bytes` and returns the document's root with a reader holding its repeated keys;
    /// text that is not JSON throws, as a config error with its line and column.
    public static func parse(_ bytes: [UInt8], limit: Int = defaultLimit) throws(ConfigError) -> (root: JSONNode, reader: ConfigReader) {
        do {
            let document = try JSONDocument(parsing: bytes)
            return (document.root, ConfigReader(repeatedKeys: document.repeatedKeys, limit: limit))
        } catch {
            throw ConfigError(issues: Array(error.repeatedKeys.prefix(limit - 1)) + [error.issue])
        }
    }

    /// Every problem found, the reading's first.
    public var issues: [ConfigIssue] { readingIssues + checkIssues }

    /// How many more problems the reader will list.
    public var room: Int { max(0, limit - readingIssues.count - checkIssues.count) }

    /// Whether the reader has listed as many problems as it will.
    public var isFull: Bool { room == 0 }

    /// Whether any problem was found.
    public var hasIssues: Bool { !readingIssues.isEmpty || !checkIssues.isEmpty }

    /// Notes a problem with the value at `path`, found at `location` in the text.
    public func report(_ message: String, at path: ConfigPath, _ location: TextLocation?) {
        valuesAreUsable = false
        reportKey(message, at: path, location)
    }

    /// Notes a problem with the key at `path` (unknown), which leaves the values usable.
    public func reportKey(_ message: String, at path: ConfigPath, _ location: TextLocation?) {
        guard !isFull else {
            isIncomplete = true
            return
        }
        readingIssues.append(ConfigIssue(path: path.description, message: message, location: location))
    }

    /// Notes the problems of a check across the values read (a validation), each placed at the
    /// location of its path in `root` when it has none.
    public func report(checked found: [ConfigIssue], in root: JSONNode) {
        let room = self.room
        checkIssues += found.prefix(room).map { issue in
            var placed = issue
            if placed.location == nil { placed.location = root.node(at: issue.path)?.location }
            return placed
        }
        if found.count > room { isIncomplete = true }
    }

    /// `node` (the document's root unless told) as a value to read.
    public func value(_ node: JSONNode, at path: ConfigPath = .root) -> ConfigValue {
        ConfigValue(node: node, path: path, reader: self)
    }

    /// The problems as an error of `file`: the reading's in file order (those without a location
    /// last), then the checks' in their order.
    public func error(file: String? = nil) -> ConfigError {
        let ordered = readingIssues.enumerated().sorted { a, b in
            switch (a.element.location, b.element.location) {
            case let (x?, y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.offset < b.offset
            }
        }
        return ConfigError(file: file, issues: ordered.map(\.element) + checkIssues, isIncomplete: isIncomplete)
    }
}
