public import BeaconCore
import Foundation

extension ChainConfig {
    /// Decodes and validates the contents of a chain config file named `file` (the caller reads
    /// it: the engine does no I/O); throws a ``ConfigError`` listing every problem with its JSON
    /// path. A config that throws here must never start an aggregator.
    ///
    /// `tuning`, when given, is a JSON object whose keys replace the file's `tuning` keys (what
    /// `beacon-aggregator replay --tuning` passes to try settings on a recording); it is checked
    /// like the rest.
    public static func load(contents: [UInt8], file path: String, tuning: String? = nil) throws(ConfigError) -> ChainConfig {
        let data = Data(contents)
        var given: Set<String> = []
        var bytes = Array(data)
        if let tuning {
            guard let extra = try? JSONSerialization.jsonObject(with: Data(tuning.utf8)) as? [String: Any] else {
                // Not the file's problem: no file name on it.
                throw ConfigError(issues: [ConfigIssue(path: "--tuning", message: "must be a JSON object, e.g. {\"rule\":\"hmm\",\"switch_margin_db\":4}")])
            }
            given = Set(extra.keys)
            bytes = overlay(extra, on: data)
        }
        do {
            // Keys repeated in the file are looked for in the file itself: the overlay's
            // re-serialisation would keep one of them silently.
            return try parse(bytes, duplicates: tuning == nil ? nil : DuplicateKeys.find(in: Array(data)))
        } catch {
            var located = error
            located.file = path
            // A problem with a key given on the command line says so: it is not in the file.
            located.issues = located.issues.map { issue in
                guard issue.path.hasPrefix("$.tuning."),
                      given.contains(String(issue.path.dropFirst("$.tuning.".count).prefix { $0 != "[" && $0 != "." })) else { return issue }
                return ConfigIssue(path: issue.path, message: issue.message + " (from --tuning)")
            }
            throw located
        }
    }

    /// The config `data` with the keys of `extra` set in its `tuning` object.
    static func overlay(_ extra: [String: Any], on data: Data) -> [UInt8] {
        // A file that is not a JSON object is left as it is: parsing it reports that, with its path.
        guard var root = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] else { return Array(data) }
        // The file's own `tuning` must be usable before anything is laid over it.
        if let own = root["tuning"], !(own is NSNull), !(own is [String: Any]) { return Array(data) }
        var merged = root["tuning"] as? [String: Any] ?? [:]
        merged.merge(extra) { _, new in new }
        root["tuning"] = merged
        guard let bytes = try? JSONSerialization.data(withJSONObject: root) else { return Array(data) }
        return Array(bytes)
    }

    /// `data` as a JSON tree (JSONSerialization's), or the config error of text that is not JSON.
    static func jsonTree(_ data: Data) throws(ConfigError) -> Any {
        do {
            return try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ConfigError(issues: [ConfigIssue(path: "$", message: "not valid JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error)")])
        }
    }

    /// Decodes and validates a config from JSON bytes. Unknown keys are errors, so that a typo such
    /// as `dwel_s` is reported instead of silently leaving the default in force.
    ///
    /// `duplicates`, when given, are the repeated keys of the original text (``load(path:tuning:)``
    /// passes them when `bytes` is a re-serialised overlay); by default `bytes` is searched.
    public static func parse(_ bytes: [UInt8], duplicates: [ConfigIssue]? = nil) throws(ConfigError) -> ChainConfig {
        let data = Data(bytes)
        let tree = try jsonTree(data)
        var issues = unknownKeys(in: tree) + (duplicates ?? DuplicateKeys.find(in: bytes))
        // Types and whole numbers are checked on the tree: the decoder stops at the first wrong
        // type, and its error for 12.5 has no path. Every such problem is reported at once; the
        // checks of values (ranges, duplicates, references) need the types right and come after.
        let typed = typeIssues(in: tree)
        if !typed.isEmpty { throw ConfigError(issues: issues + typed) }
        let config: ChainConfig
        do {
            config = try JSONDecoder().decode(ChainConfig.self, from: data)
        } catch let error as DecodingError {
            issues.append(Self.issue(for: error))
            throw ConfigError(issues: issues)
        } catch {
            throw ConfigError(issues: issues + [ConfigIssue(path: "$", message: "\(error)")])
        }
        issues += config.validate()
        if !issues.isEmpty { throw ConfigError(issues: issues) }
        return config
    }

    /// Maps a decoding failure to the JSON path and a sentence a person can act on.
    static func issue(for error: DecodingError) -> ConfigIssue {
        func path(_ keys: [any CodingKey]) -> String {
            keys.reduce("$") { partial, key in
                if let index = key.intValue { return "\(partial)[\(index)]" }
                return "\(partial).\(key.stringValue)"
            }
        }
        switch error {
        case .keyNotFound(let key, let context):
            return ConfigIssue(path: path(context.codingPath + [key]), message: "is required but missing")
        case .typeMismatch(let type, let context):
            return ConfigIssue(path: path(context.codingPath), message: "has the wrong type, expected \(Self.jsonName(type))")
        case .valueNotFound(let type, let context):
            return ConfigIssue(path: path(context.codingPath), message: "is null, expected \(Self.jsonName(type))")
        case .dataCorrupted(let context):
            return ConfigIssue(path: path(context.codingPath), message: context.debugDescription)
        @unknown default:
            return ConfigIssue(path: "$", message: "\(error)")
        }
    }

    static func jsonName(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: return "an integer"
        case is Double.Type: return "a number"
        case is String.Type: return "a string"
        case is Bool.Type: return "true or false"
        default:
            let name = String(describing: type)
            return name.hasPrefix("Array") ? "an array" : (name.hasPrefix("Dictionary") ? "an object" : "an object (\(name))")
        }
    }

    /// The keys each object of the format may have; anything else is reported.
    static let knownKeys: [String: Set<String>] = [
        "$": ["site_uuid", "stores", "gateways", "tuning", "calibration", "comment"],
        "store": ["major", "name", "notify_on_entry", "notify_on_exit", "sections", "mount_height_m", "comment"],
        "section": ["minor", "name", "adjacent", "polygon", "street_door", "notify_on_entry", "notify_on_exit", "comment"],
        "gateway": ["id", "store", "section", "position", "calibration_db", "path_loss_exponent", "comment"],
        "tuning": Set(Tuning.CodingKeys.allKeys + ["comment"]),
    ]

    /// The JSON type each key of the format takes.
    enum Kind: String {
        case string = "a string", number = "a number", integer = "an integer", bool = "true or false", array = "an array", object = "an object"

        func matches(_ value: Any) -> Bool {
            // JSONSerialization gives true and false as NSNumbers of ObjC type "c".
            let boolean = (value as? NSNumber).map { String(cString: $0.objCType) == "c" } ?? false
            switch self {
            case .string: return value is String
            // An integer that is not whole gets its own message (``typeIssues(in:)``).
            case .number, .integer: return value is NSNumber && !boolean
            case .bool: return boolean
            case .array: return value is [Any]
            case .object: return value is [String: Any]
            }
        }
    }

    static let kinds: [String: [String: Kind]] = [
        "$": ["site_uuid": .string, "stores": .array, "gateways": .array, "tuning": .object, "calibration": .string, "comment": .string],
        "store": ["major": .integer, "name": .string, "notify_on_entry": .bool, "notify_on_exit": .bool, "sections": .array,
                  "mount_height_m": .number, "comment": .string],
        "section": ["minor": .integer, "name": .string, "adjacent": .array, "polygon": .array, "street_door": .bool,
                    "notify_on_entry": .bool, "notify_on_exit": .bool, "comment": .string],
        "gateway": ["id": .string, "store": .integer, "section": .integer, "position": .array, "calibration_db": .number,
                    "path_loss_exponent": .number, "comment": .string],
        "tuning": Dictionary(uniqueKeysWithValues: Tuning.CodingKeys.allKeys.map { key in
            (key, key == "rule" || key == "exit_rule" ? Kind.string : key == "street_exit" ? .bool
                : key == "min_sightings_to_enter" ? .integer : .number)
        }).merging(["comment": .string]) { a, _ in a },
    ]

    /// Every value of a known key whose JSON type is wrong, with its path (null counts as absent:
    /// the decoder reports a null where a value is required), and every integer (majors, minors,
    /// adjacency, a gateway's store and section, `min_sightings_to_enter`) that is not whole or is
    /// beyond ±2^53, where a JSON number stops holding every whole value. Array items are checked
    /// too: the numbers of `adjacent`, the points of `polygon`, the coordinates of `position`.
    static func typeIssues(in tree: Any) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func verify(_ path: String, _ kind: Kind, _ value: Any) {
            guard !kind.matches(value) else {
                if kind == .integer, let x = (value as? NSNumber)?.doubleValue, !(x.rounded() == x && abs(x) < 9_007_199_254_740_992) {
                    issues.append(ConfigIssue(path: path, message: "\(value) is not a whole number (within ±2^53)"))
                }
                return
            }
            issues.append(ConfigIssue(path: path, message: value is NSNull ? "is null, expected \(kind.rawValue)" : "has the wrong type, expected \(kind.rawValue)"))
        }
        func check(_ object: Any, _ kindOf: String, _ path: String) -> [String: Any]? {
            guard let dict = object as? [String: Any] else { verify(path, .object, object); return nil }
            for key in dict.keys.sorted() where !(dict[key] is NSNull) {
                if let kind = kinds[kindOf]?[key] { verify("\(path).\(key)", kind, dict[key]!) }
            }
            return dict
        }
        func numbers(_ value: Any?, _ path: String, _ kind: Kind = .number) {
            for (i, item) in (value as? [Any] ?? []).enumerated() { verify("\(path)[\(i)]", kind, item) }
        }
        guard let root = check(tree, "$", "$") else { return issues }
        for (i, store) in (root["stores"] as? [Any] ?? []).enumerated() {
            guard let store = check(store, "store", "$.stores[\(i)]") else { continue }
            for (j, section) in (store["sections"] as? [Any] ?? []).enumerated() {
                let path = "$.stores[\(i)].sections[\(j)]"
                guard let section = check(section, "section", path) else { continue }
                numbers(section["adjacent"], "\(path).adjacent", .integer)
                for (k, point) in (section["polygon"] as? [Any] ?? []).enumerated() {
                    verify("\(path).polygon[\(k)]", .array, point)
                    numbers(point, "\(path).polygon[\(k)]")
                }
            }
        }
        for (i, gateway) in (root["gateways"] as? [Any] ?? []).enumerated() {
            guard let gateway = check(gateway, "gateway", "$.gateways[\(i)]") else { continue }
            numbers(gateway["position"], "$.gateways[\(i)].position")
        }
        if let tuning = root["tuning"] as? [String: Any] { _ = check(tuning, "tuning", "$.tuning") }
        return issues
    }

    static func unknownKeys(in tree: Any) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func check(_ object: Any, _ kind: String, _ path: String) {
            guard let dict = object as? [String: Any], let known = knownKeys[kind] else { return }
            for key in dict.keys.sorted() where !known.contains(key) {
                let hint = known.min { Self.distance($0, key) < Self.distance($1, key) }
                    .flatMap { Self.distance($0, key) <= 3 ? " (did you mean \"\($0)\"?)" : nil } ?? ""
                issues.append(ConfigIssue(path: "\(path).\(key)", message: "unknown key\(hint)"))
            }
        }
        check(tree, "$", "$")
        guard let root = tree as? [String: Any] else { return issues }
        for (i, store) in (root["stores"] as? [Any] ?? []).enumerated() {
            check(store, "store", "$.stores[\(i)]")
            for (j, section) in ((store as? [String: Any])?["sections"] as? [Any] ?? []).enumerated() {
                check(section, "section", "$.stores[\(i)].sections[\(j)]")
            }
        }
        for (i, gateway) in (root["gateways"] as? [Any] ?? []).enumerated() {
            check(gateway, "gateway", "$.gateways[\(i)]")
        }
        if let tuning = root["tuning"] { check(tuning, "tuning", "$.tuning") }
        return issues
    }

    /// Levenshtein distance, for "did you mean" hints on short keys.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        var row = Array(0...b.count)
        for i in 1...max(a.count, 1) where !a.isEmpty {
            var previous = row[0]
            row[0] = i
            for j in 1...max(b.count, 1) where !b.isEmpty {
                let saved = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (a[i - 1] == b[j - 1] ? 0 : 1))
                previous = saved
            }
        }
        return row[b.count]
    }
}

extension Tuning.CodingKeys {
    static var allKeys: [String] { allCases.map(\.stringValue) }
}
