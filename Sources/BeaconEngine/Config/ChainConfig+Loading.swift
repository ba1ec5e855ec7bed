public import BeaconCore

extension ChainConfig {
    /// Reads and validates the contents of a chain config file named `file` (the caller reads
    /// it: the engine does no I/O); throws a ``ConfigError`` listing every problem with its line,
    /// column and JSON path. A config that throws here must never start an aggregator.
    ///
    /// `tuning`, when given, is a JSON object whose keys replace the file's `tuning` keys (what
    /// `beacon-aggregator replay --tuning` passes to try settings on a recording); it is laid over
    /// the parsed file and checked like the rest, its problems marked `(from --tuning)`.
    public static func load(contents: [UInt8], file path: String, tuning: String? = nil) throws(ConfigError) -> ChainConfig {
        var overlay: JSONDocument?
        if let tuning {
            // Not the file's problem: no file name on it.
            let example = "e.g. {\"rule\":\"hmm\",\"switch_margin_db\":4}"
            let document: JSONDocument
            do {
                document = try JSONDocument(parsing: Array(tuning.utf8))
            } catch {
                throw ConfigError(issues: [ConfigIssue(path: "--tuning", message: "must be a JSON object, \(example); at \(error)")])
            }
            guard case .object = document.root.value else {
                throw ConfigError(issues: [ConfigIssue(path: "--tuning", message: "must be a JSON object, \(example)")])
            }
            overlay = document
        }
        do {
            guard let overlay else { return try parse(contents) }
            return try parse(contents, overlay: overlay)
        } catch {
            var located = error
            located.file = path
            try Self.rethrow(located, overlay: overlay)
        }
    }

    /// Reads and validates a config from JSON bytes. Unknown keys are errors, so that a typo such
    /// as `dwel_s` is reported instead of silently leaving the default in force.
    public static func parse(_ bytes: [UInt8]) throws(ConfigError) -> ChainConfig {
        let (root, reader) = try ConfigReader.parse(bytes)
        return try read(root, reader)
    }

    /// `bytes` with the members of `overlay` laid over its `tuning` object.
    static func parse(_ bytes: [UInt8], overlay: JSONDocument) throws(ConfigError) -> ChainConfig {
        let file: JSONDocument
        do {
            file = try JSONDocument(parsing: bytes)
        } catch {
            throw ConfigError(issues: error.repeatedKeys + [error.issue])
        }
        let repeated = overlay.repeatedKeys.map { issue in
            ConfigIssue(path: "$.tuning" + issue.path.dropFirst(), message: issue.message)
        }
        return try read(Self.overlaying(overlay.root, on: file.root), ConfigReader(repeatedKeys: file.repeatedKeys + repeated))
    }

    /// Reads the document at `root` with `reader`: the types first, every problem at once; the
    /// checks of values (ranges, duplicates, references) once the values read are the file's.
    static func read(_ root: JSONNode, _ reader: ConfigReader) throws(ConfigError) -> ChainConfig {
        let config = reader.value(root).object { ChainConfig(reading: &$0) }
        guard let config, reader.valuesAreUsable else { throw reader.error() }
        reader.report(checked: config.validate(), in: root)
        if reader.hasIssues { throw reader.error() }
        return config
    }

    /// `root` with the members of `overlay` (an object) set in its `tuning` object, without
    /// locations: theirs are not the file's. A file that is not an object, or whose own `tuning`
    /// is not one, is left as it is: reading it reports that.
    static func overlaying(_ overlay: JSONNode, on root: JSONNode) -> JSONNode {
        guard case .object(var members) = root.value, case .object(let extra) = overlay.value else { return root }
        let laid = extra.map { JSONMember(key: $0.key, value: $0.value.withoutLocations()) }
        guard let index = members.firstIndex(where: { $0.key == "tuning" }) else {
            members.append(JSONMember(key: "tuning", value: JSONNode(.object(laid))))
            return JSONNode(.object(members), at: root.location)
        }
        var tuning = members[index].value
        switch tuning.value {
        case .null:
            tuning = JSONNode(.object(laid), at: tuning.location)
        case .object(var own):
            for member in laid {
                if let existing = own.firstIndex(where: { $0.key == member.key }) { own[existing] = member } else { own.append(member) }
            }
            tuning = JSONNode(.object(own), at: tuning.location)
        default:
            return root
        }
        members[index].value = tuning
        return JSONNode(.object(members), at: root.location)
    }

    /// `error` with the problems of keys given in `--tuning` said to be from there, without a
    /// location in the file.
    static func rethrow(_ error: ConfigError, overlay: JSONDocument?) throws(ConfigError) -> Never {
        guard case .object(let members)? = overlay?.root.value else { throw error }
        let given = Set(members.map(\.key))
        var marked = error
        marked.issues = error.issues.map { issue in
            guard issue.path.hasPrefix("$.tuning."),
                  given.contains(String(issue.path.dropFirst("$.tuning.".count).prefix { $0 != "[" && $0 != "." })) else { return issue }
            return ConfigIssue(path: issue.path, message: issue.message + " (from --tuning)")
        }
        throw marked
    }
}
