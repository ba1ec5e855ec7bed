public import BeaconCore
import Foundation

/// A value given on the command line that replaces (or adds) one key of the config file.
public struct ConfigOverride: Sendable {
    /// The key's path, e.g. `["broker", "port"]`.
    public var path: [String]
    /// The value, as it would be written in the file.
    public var value: JSONValue
    /// The flag it came from (`--broker-port`), named in errors.
    public var flag: String

    /// Makes an override.
    public init(path: [String], value: JSONValue, flag: String) {
        self.path = path
        self.value = value
        self.flag = flag
    }
}

extension EdgeConfig {
    /// Reads the config file (if any), applies the flags on top, and validates the result.
    /// Unknown keys are errors, so a typo is reported instead of leaving a default in force.
    /// - Throws: ``ConfigError`` with every problem, each with its line, column and JSON path.
    public static func load(file: String?, overrides: [ConfigOverride] = []) throws(ConfigError) -> EdgeConfig {
        guard let file else { return try parse(nil, overrides: overrides) }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigError(file: file, issues: [ConfigIssue(path: "$", message: "cannot read the file (missing or not readable)")])
        }
        do {
            return try parse(Array(data), overrides: overrides)
        } catch {
            var located = error
            located.file = file
            throw located
        }
    }

    /// Reads and validates a config from the JSON text of a file (`nil`: no file, flags only),
    /// with the flags applied on top; what ``load(file:overrides:)`` does once it has the bytes.
    /// Paths named in the config (`password_file`, TLS files) are still read or checked.
    /// - Throws: ``ConfigError`` with every problem, each with its JSON path (and no file name).
    public static func parse(_ bytes: [UInt8]?, overrides: [ConfigOverride] = []) throws(ConfigError) -> EdgeConfig {
        var root = JSONNode(.object([]))
        var reader = ConfigReader()
        if let bytes {
            (root, reader) = try ConfigReader.parse(bytes)
        }
        var flags: [String: String] = [:]
        for override in overrides {
            root = root.setting(override.value.node, at: override.path[...])
            flags["$." + override.path.joined(separator: ".")] = override.flag
        }
        let config = reader.value(root).object { EdgeConfig(reading: &$0, flags: flags) }
        guard let config, !reader.hasIssues else { throw Self.marking(reader.error(), flags: flags) }
        return config
    }

    /// `error` with each problem of a value that came from a flag saying so.
    static func marking(_ error: ConfigError, flags: [String: String]) -> ConfigError {
        var marked = error
        marked.issues = error.issues.map { issue in
            // An item of a list that came from a flag (`$.allow_list.ibeacon_uuids[0]`) names it too.
            let list = issue.path.firstIndex(of: "[").map { String(issue.path[..<$0]) } ?? issue.path
            guard let flag = flags[issue.path] ?? flags[list] else { return issue }
            return ConfigIssue(path: issue.path, message: issue.message + " (from \(flag))")
        }
        return marked
    }
}

extension JSONNode {
    /// The value with the member at `keys` set to `value` (objects made on the way, whatever
    /// was there replaced).
    func setting(_ value: JSONNode, at keys: ArraySlice<String>) -> JSONNode {
        guard let key = keys.first else { return value }
        var members: [JSONMember] = []
        if case .object(let existing) = self.value { members = existing }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value = members[index].value.setting(value, at: keys.dropFirst())
        } else {
            members.append(JSONMember(key: key, value: JSONNode(.null).setting(value, at: keys.dropFirst())))
        }
        return JSONNode(.object(members), at: location)
    }
}
