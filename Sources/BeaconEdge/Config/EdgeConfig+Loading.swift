public import BeaconCore
import BeaconWire
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
    /// - Throws: ``ConfigError`` with every problem, each with its JSON path.
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

    /// Decodes and validates a config from the JSON text of a file (`nil`: no file, flags only),
    /// with the flags applied on top; what ``load(file:overrides:)`` does once it has the bytes.
    /// Paths named in the config (`password_file`, TLS files) are still read or checked.
    /// - Throws: ``ConfigError`` with every problem, each with its JSON path (and no file name).
    public static func parse(_ bytes: [UInt8]?, overrides: [ConfigOverride] = []) throws(ConfigError) -> EdgeConfig {
        var tree = JSONValue.object([])
        var repeated: [ConfigIssue] = []
        if let bytes {
            do {
                tree = try JSONValue.parse(bytes)
            } catch {
                throw ConfigError(issues: [ConfigIssue(path: "$", message: error.message)])
            }
            guard case .object = tree else {
                throw ConfigError(issues: [ConfigIssue(path: "$", message: "must be a JSON object")])
            }
            // json-c keeps one value of a repeated key without a word.
            repeated = DuplicateKeys.find(in: bytes)
        }
        var flags: [String: String] = [:]
        for override in overrides {
            tree.set(override.path[...], to: override.value)
            flags["$." + override.path.joined(separator: ".")] = override.flag
        }
        var reader = ConfigReader(flags: flags)
        let config = reader.config(tree)
        guard let config, reader.issues.isEmpty, repeated.isEmpty else {
            throw ConfigError(issues: repeated + reader.issues)
        }
        return config
    }

    /// The keys the format knows, per object path; anything else is reported.
    static let knownKeys: [String: Set<String>] = [
        "$": [
            "comment", "gateway", "store", "section", "broker", "scan", "allow_list", "allow_all", "batch_window_ms",
            "buffer", "status_interval_s", "topic_root", "include_address",
        ],
        "$.broker": ["host", "port", "client_id", "username", "password_file", "tls", "keep_alive_s"],
        "$.broker.tls": ["ca_file", "cert_file", "key_file"],
        "$.scan": ["adapter", "interval_ms", "window_ms"],
        "$.allow_list": ["ibeacon_uuids", "eddystone_namespaces", "altbeacon_ids"],
        "$.buffer": ["max_batches", "spill_file", "memory_batches"],
    ]
}

/// Walks the config tree, collecting every issue with its path.
private struct ConfigReader {
    let flags: [String: String]
    var issues: [ConfigIssue] = []

    mutating func fail(_ path: String, _ message: String) {
        // An item of a list that came from a flag (`$.allow_list.ibeacon_uuids[0]`) names it too.
        let list = path.firstIndex(of: "[").map { String(path[..<$0]) } ?? path
        let origin = (flags[path] ?? flags[list]).map { " (from \($0))" } ?? ""
        issues.append(ConfigIssue(path: path, message: message + origin))
    }

    mutating func object(_ value: JSONValue?, _ path: String) -> JSONValue? {
        guard let value, value != .null else { return nil }
        guard case .object(let members) = value else {
            fail(path, "must be an object")
            return nil
        }
        let known = EdgeConfig.knownKeys[path] ?? []
        for (key, _) in members where !known.contains(key) {
            fail("\(path).\(key)", "unknown key (known here: \(known.sorted().joined(separator: ", ")))")
        }
        return value
    }

    mutating func integer(_ value: JSONValue?, _ path: String, in range: ClosedRange<Int>, default fallback: Int?) -> Int? {
        guard let value, value != .null else {
            if fallback == nil { fail(path, "is required") }
            return fallback
        }
        guard case .int(let number) = value else {
            fail(path, "must be an integer, got \(value.serialized())")
            return fallback
        }
        guard number >= Int64(range.lowerBound), number <= Int64(range.upperBound) else {
            fail(path, "must be \(range.lowerBound)–\(range.upperBound), got \(number)")
            return fallback
        }
        return Int(number)
    }

    mutating func number(_ value: JSONValue?, _ path: String, in range: ClosedRange<Double>, default fallback: Double) -> Double {
        guard let value, value != .null else { return fallback }
        let number: Double
        switch value {
        case .int(let n): number = Double(n)
        case .double(let n): number = n
        default:
            fail(path, "must be a number, got \(value.serialized())")
            return fallback
        }
        guard range.contains(number) else {
            fail(path, "must be \(range.lowerBound)–\(range.upperBound), got \(number)")
            return fallback
        }
        return number
    }

    mutating func string(_ value: JSONValue?, _ path: String) -> String? {
        guard let value, value != .null else { return nil }
        guard case .string(let text) = value else {
            fail(path, "must be a string, got \(value.serialized())")
            return nil
        }
        guard !text.isEmpty else {
            fail(path, "must not be empty")
            return nil
        }
        return text
    }

    mutating func bool(_ value: JSONValue?, _ path: String) -> Bool {
        guard let value, value != .null else { return false }
        guard case .bool(let flag) = value else {
            fail(path, "must be true or false, got \(value.serialized())")
            return false
        }
        return flag
    }

    mutating func list<T>(_ value: JSONValue?, _ path: String, what: String, _ parse: (String) -> T?) -> [T] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value else {
            fail(path, "must be an array of \(what)")
            return []
        }
        var parsed: [T] = []
        for (index, item) in items.enumerated() {
            guard case .string(let text) = item, let element = parse(text) else {
                fail("\(path)[\(index)]", "must be \(what), got \(item.serialized())")
                continue
            }
            parsed.append(element)
        }
        return parsed
    }

    mutating func readable(_ file: String?, _ path: String) {
        guard let file else { return }
        if !FileManager.default.isReadableFile(atPath: file) {
            fail(path, "cannot read \(file) (missing or not readable)")
        }
    }

    mutating func config(_ root: JSONValue) -> EdgeConfig? {
        _ = object(root, "$")
        let gateway = gatewayID(root["gateway"])
        let store = integer(root["store"], "$.store", in: 0...65535, default: nil)
        let section = integer(root["section"], "$.section", in: 0...65535, default: nil)
        let broker = broker(root["broker"])
        let scan = scan(root["scan"])
        let allow = allowList(root)
        let window = integer(root["batch_window_ms"], "$.batch_window_ms", in: 10...60_000, default: 1000) ?? 1000
        let buffer = buffer(root["buffer"])
        let statusInterval = integer(root["status_interval_s"], "$.status_interval_s", in: 1...3600, default: 30) ?? 30
        let topicRoot = topicRoot(root["topic_root"])
        let includeAddress = bool(root["include_address"], "$.include_address")

        guard let gateway, let store, let section else { return nil }
        return EdgeConfig(
            gateway: gateway, store: StoreNumber(store), section: SectionNumber(section), broker: broker, scan: scan,
            allowList: allow, batchWindowMilliseconds: window, buffer: buffer, statusIntervalSeconds: statusInterval,
            topicRoot: topicRoot, includeAddress: includeAddress)
    }

    /// `$.gateway`, which is required.
    mutating func gatewayID(_ value: JSONValue?) -> GatewayID? {
        if let text = string(value, "$.gateway") {
            do { return try GatewayID(text) } catch { fail("$.gateway", "\(error)") }
        } else if value == nil || value == .null {
            fail("$.gateway", "is required: this gateway's id, gw- followed by a-z, 0-9 or -")
        }
        return nil
    }

    /// `$.broker`, its password read from `password_file`.
    mutating func broker(_ value: JSONValue?) -> EdgeConfig.Broker {
        var broker = EdgeConfig.Broker()
        guard let node = object(value, "$.broker") else { return broker }
        broker.host = string(node["host"], "$.broker.host") ?? broker.host
        broker.port = integer(node["port"], "$.broker.port", in: 1...65535, default: broker.port) ?? broker.port
        broker.clientID = string(node["client_id"], "$.broker.client_id")
        broker.username = string(node["username"], "$.broker.username")
        broker.passwordFile = string(node["password_file"], "$.broker.password_file")
        broker.keepAliveSeconds = integer(node["keep_alive_s"], "$.broker.keep_alive_s", in: 5...3600, default: 30) ?? 30
        if let file = broker.passwordFile {
            if broker.username == nil { fail("$.broker.password_file", "needs broker.username (or --username)") }
            if let data = FileManager.default.contents(atPath: file) {
                var text = String(decoding: data, as: UTF8.self)
                while text.hasSuffix("\n") || text.hasSuffix("\r") { text.removeLast() }
                broker.password = text
            } else {
                fail("$.broker.password_file", "cannot read \(file) (missing or not readable)")
            }
        }
        broker.tls = tls(node["tls"])
        return broker
    }

    /// `$.broker.tls`: the CA is required, a client certificate and key go together, all readable.
    mutating func tls(_ value: JSONValue?) -> EdgeConfig.TLS? {
        guard let tls = object(value, "$.broker.tls") else { return nil }
        let ca = string(tls["ca_file"], "$.broker.tls.ca_file")
        if ca == nil {
            let given = [flags["$.broker.tls.cert_file"], flags["$.broker.tls.key_file"]].compactMap { $0 }
            fail("$.broker.tls.ca_file", "is required with TLS" + (given.isEmpty ? "" : " (\(given.joined(separator: " and ")) given; add --tls-ca)"))
        }
        let cert = string(tls["cert_file"], "$.broker.tls.cert_file")
        let key = string(tls["key_file"], "$.broker.tls.key_file")
        if (cert == nil) != (key == nil) {
            fail("$.broker.tls", "cert_file and key_file go together: give both or neither")
        }
        readable(ca, "$.broker.tls.ca_file")
        readable(cert, "$.broker.tls.cert_file")
        readable(key, "$.broker.tls.key_file")
        return ca.map { EdgeConfig.TLS(caFile: $0, certFile: cert, keyFile: key) }
    }

    /// `$.scan`: the adapter (checked even when the default), its interval and window.
    mutating func scan(_ value: JSONValue?) -> EdgeConfig.Scan {
        var scan = EdgeConfig.Scan()
        if let node = object(value, "$.scan") {
            scan.adapter = string(node["adapter"], "$.scan.adapter") ?? scan.adapter
            scan.intervalMilliseconds = number(node["interval_ms"], "$.scan.interval_ms", in: 2.5...10240, default: 100)
            scan.windowMilliseconds = number(node["window_ms"], "$.scan.window_ms", in: 2.5...10240, default: 100)
            if scan.windowMilliseconds > scan.intervalMilliseconds {
                fail("$.scan.window_ms", "must not exceed scan.interval_ms (\(scan.intervalMilliseconds))")
            }
        }
        if !scan.adapter.hasPrefix("hci") || Int(scan.adapter.dropFirst(3)) == nil {
            fail("$.scan.adapter", "must be a BlueZ adapter name such as hci0, got \(scan.adapter)")
        }
        return scan
    }

    /// `$.allow_all` and `$.allow_list`: exactly one of the two.
    mutating func allowList(_ root: JSONValue) -> AllowList {
        var allow = AllowList(allowAll: bool(root["allow_all"], "$.allow_all"))
        if let node = object(root["allow_list"], "$.allow_list") {
            allow.iBeaconUUIDs = list(node["ibeacon_uuids"], "$.allow_list.ibeacon_uuids", what: "a UUID", UUID128.init)
            allow.eddystoneNamespaces = list(
                node["eddystone_namespaces"], "$.allow_list.eddystone_namespaces", what: "20 hex digits",
                EddystoneNamespace.init(hex:))
            allow.altBeaconIDs = list(node["altbeacon_ids"], "$.allow_list.altbeacon_ids", what: "a UUID", UUID128.init)
        }
        if allow.allowAll && !allow.isEmpty {
            fail("$.allow_all", "true publishes everything, so allow_list must be empty; keep one of the two")
        } else if !allow.allowAll && allow.isEmpty && !issues.contains(where: { $0.path.hasPrefix("$.allow_list") }) {
            fail(
                "$.allow_list",
                "is empty: list the chain's iBeacon UUIDs (ibeacon_uuids), Eddystone namespaces or AltBeacon ids, or set \"allow_all\": true to publish every device (strangers' phones included)")
        }
        return allow
    }

    /// `$.buffer`: `memory_batches` only with a spill file.
    mutating func buffer(_ value: JSONValue?) -> EdgeConfig.Buffer {
        var buffer = EdgeConfig.Buffer()
        guard let node = object(value, "$.buffer") else { return buffer }
        buffer.maxBatches = integer(node["max_batches"], "$.buffer.max_batches", in: 1...1_000_000, default: 3600) ?? 3600
        buffer.spillFile = string(node["spill_file"], "$.buffer.spill_file")
        buffer.memoryBatches =
            integer(node["memory_batches"], "$.buffer.memory_batches", in: 1...buffer.maxBatches, default: min(60, buffer.maxBatches))
            ?? 60
        if node["memory_batches"] != nil, buffer.spillFile == nil {
            fail("$.buffer.memory_batches", "only applies with buffer.spill_file (without one every batch stays in memory)")
        }
        return buffer
    }

    /// `$.topic_root`, when it makes a valid topic scheme.
    mutating func topicRoot(_ value: JSONValue?) -> String {
        guard let text = string(value, "$.topic_root") else { return TopicScheme.defaultRoot }
        do {
            _ = try TopicScheme(root: text)
            return text
        } catch {
            fail("$.topic_root", "\(error)")
            return TopicScheme.defaultRoot
        }
    }
}
