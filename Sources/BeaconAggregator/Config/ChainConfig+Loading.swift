public import BeaconCore
import Foundation

extension ChainConfig {
    /// Reads, decodes and validates a chain config file; throws a ``ConfigError`` listing every
    /// problem with its JSON path. A config that throws here must never start an aggregator.
    ///
    /// `tuning`, when given, is a JSON object whose keys replace the file's `tuning` keys (what
    /// `beacon-aggregator replay --tuning` passes to try settings on a recording); it is checked
    /// like the rest.
    public static func load(path: String, tuning: String? = nil) throws(ConfigError) -> ChainConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(file: path, issues: [ConfigIssue(path: "$", message: "cannot read the file (missing or not readable)")])
        }
        let bytes: [UInt8]
        if let tuning {
            bytes = try overlay(tuning, on: data)  // its own error names --tuning, not the file
        } else {
            bytes = Array(data)
        }
        do {
            return try parse(bytes)
        } catch {
            var located = error
            located.file = path
            // A problem with a key given on the command line says so: it is not in the file.
            let given = tuning.flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }.map { Set($0.keys) } ?? []
            located.issues = located.issues.map { issue in
                guard issue.path.hasPrefix("$.tuning."),
                      given.contains(String(issue.path.dropFirst("$.tuning.".count).prefix { $0 != "[" && $0 != "." })) else { return issue }
                return ConfigIssue(path: issue.path, message: issue.message + " (from --tuning)")
            }
            throw located
        }
    }

    /// The config `data` with the keys of the JSON object `tuning` set in its `tuning` object.
    static func overlay(_ tuning: String, on data: Data) throws(ConfigError) -> [UInt8] {
        guard let extra = try? JSONSerialization.jsonObject(with: Data(tuning.utf8)) as? [String: Any] else {
            throw ConfigError(issues: [ConfigIssue(path: "--tuning", message: "must be a JSON object, e.g. {\"rule\":\"hmm\",\"switch_margin_db\":4}")])
        }
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

    /// Decodes and validates a config from JSON bytes. Unknown keys are errors, so that a typo such
    /// as `dwel_s` is reported instead of silently leaving the default in force.
    public static func parse(_ bytes: [UInt8]) throws(ConfigError) -> ChainConfig {
        let data = Data(bytes)
        let tree: Any
        do {
            tree = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ConfigError(issues: [ConfigIssue(path: "$", message: "not valid JSON: \((error as NSError).userInfo[NSDebugDescriptionErrorKey] ?? error)")])
        }
        var issues = unknownKeys(in: tree)
        // Types and whole numbers are checked on the tree: the decoder stops at the first wrong
        // type, and its error for 12.5 has no path. Every such problem is reported at once; the
        // checks of values (ranges, duplicates, references) need the types right and come after.
        let typed = typeIssues(in: tree) + nonWholeNumbers(in: tree)
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
        "$": ["site_uuid", "stores", "gateways", "tuning", "comment"],
        "store": ["major", "name", "notify_on_entry", "notify_on_exit", "sections", "comment"],
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
            // Whole-ness is checked by nonWholeNumbers, with its own message.
            case .number, .integer: return value is NSNumber && !boolean
            case .bool: return boolean
            case .array: return value is [Any]
            case .object: return value is [String: Any]
            }
        }
    }

    static let kinds: [String: [String: Kind]] = [
        "$": ["site_uuid": .string, "stores": .array, "gateways": .array, "tuning": .object, "comment": .string],
        "store": ["major": .integer, "name": .string, "notify_on_entry": .bool, "notify_on_exit": .bool, "sections": .array, "comment": .string],
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
    /// the decoder reports a null where a value is required). Array items are checked too: the
    /// numbers of `adjacent`, the points of `polygon`, the coordinates of `position`.
    static func typeIssues(in tree: Any) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func wrong(_ path: String, _ kind: Kind, _ value: Any? = nil) {
            issues.append(ConfigIssue(path: path, message: value is NSNull ? "is null, expected \(kind.rawValue)" : "has the wrong type, expected \(kind.rawValue)"))
        }
        func check(_ object: Any, _ kindOf: String, _ path: String) -> [String: Any]? {
            guard let dict = object as? [String: Any] else { wrong(path, .object); return nil }
            for key in dict.keys.sorted() where !(dict[key] is NSNull) {
                let value = dict[key]!
                if let kind = kinds[kindOf]?[key], !kind.matches(value) { wrong("\(path).\(key)", kind) }
            }
            return dict
        }
        func numbers(_ value: Any?, _ path: String, _ kind: Kind = .number) {
            for (i, item) in (value as? [Any] ?? []).enumerated() where !kind.matches(item) { wrong("\(path)[\(i)]", kind, item) }
        }
        guard let root = check(tree, "$", "$") else { return issues }
        for (i, store) in (root["stores"] as? [Any] ?? []).enumerated() {
            guard let store = check(store, "store", "$.stores[\(i)]") else { continue }
            for (j, section) in (store["sections"] as? [Any] ?? []).enumerated() {
                let path = "$.stores[\(i)].sections[\(j)]"
                guard let section = check(section, "section", path) else { continue }
                numbers(section["adjacent"], "\(path).adjacent", .integer)
                for (k, point) in (section["polygon"] as? [Any] ?? []).enumerated() {
                    if point is [Any] { numbers(point, "\(path).polygon[\(k)]") } else { wrong("\(path).polygon[\(k)]", .array, point) }
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

    /// Values the format takes as whole numbers (majors, minors, adjacency, a gateway's store and
    /// section, `min_sightings_to_enter`) that are numbers but not whole, or beyond ±2^53 (where a
    /// JSON number stops holding every whole value).
    static func nonWholeNumbers(in tree: Any) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func check(_ value: Any?, _ path: String) {
            // true and false are whole too (and the decoder reports them as the wrong type).
            guard let number = value as? NSNumber else { return }
            let x = number.doubleValue
            if !(x.rounded() == x && abs(x) < 9_007_199_254_740_992) {
                issues.append(ConfigIssue(path: path, message: "\(number) is not a whole number (within ±2^53)"))
            }
        }
        guard let root = tree as? [String: Any] else { return issues }
        for (i, store) in (root["stores"] as? [Any] ?? []).enumerated() {
            guard let store = store as? [String: Any] else { continue }
            check(store["major"], "$.stores[\(i)].major")
            for (j, section) in (store["sections"] as? [Any] ?? []).enumerated() {
                guard let section = section as? [String: Any] else { continue }
                check(section["minor"], "$.stores[\(i)].sections[\(j)].minor")
                for (k, other) in (section["adjacent"] as? [Any] ?? []).enumerated() {
                    check(other, "$.stores[\(i)].sections[\(j)].adjacent[\(k)]")
                }
            }
        }
        for (i, gateway) in (root["gateways"] as? [Any] ?? []).enumerated() {
            guard let gateway = gateway as? [String: Any] else { continue }
            check(gateway["store"], "$.gateways[\(i)].store")
            check(gateway["section"], "$.gateways[\(i)].section")
        }
        if let tuning = root["tuning"] as? [String: Any] { check(tuning["min_sightings_to_enter"], "$.tuning.min_sightings_to_enter") }
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
