public import BeaconCore
import Foundation

extension Calibration {
    /// Decodes and validates a calibration file's contents, as ``ChainConfig/parse(_:duplicates:)``
    /// does a chain's: every problem at once, each with its JSON path — unknown keys (with a "did
    /// you mean"), keys given twice, wrong types, numbers out of range, repeated fingerprints.
    /// Whether the stores, gateways and sections it names are the chain's is
    /// ``validate(against:)``'s to say. The caller reads the file and names it in the error.
    public static func parse(_ bytes: [UInt8]) throws(ConfigError) -> Calibration {
        let data = Data(bytes)
        let tree = try ChainConfig.jsonTree(data)
        var issues = DuplicateKeys.find(in: bytes)
        let shape = shapeIssues(in: tree)
        // The decoder stops at the first wrong type; the tree walk reports them all.
        if !shape.isEmpty { throw ConfigError(issues: issues + shape) }
        let calibration: Calibration
        do {
            calibration = try JSONDecoder().decode(Calibration.self, from: data)
        } catch let error as DecodingError {
            throw ConfigError(issues: issues + [ChainConfig.issue(for: error)])
        } catch {
            throw ConfigError(issues: issues + [ConfigIssue(path: "$", message: "\(error)")])
        }
        issues += calibration.validate()
        if !issues.isEmpty { throw ConfigError(issues: issues) }
        return calibration
    }

    /// The keys of each object of the format and the JSON type each takes; any object may carry a
    /// `comment`, as in the chain config.
    static let kinds: [String: [String: ChainConfig.Kind]] = [
        "$": ["comment": .string, "stores": .array],
        "store": ["major": .integer, "fingerprints": .array, "outside": .array, "comment": .string],
        "fingerprint": ["gateway": .string, "section": .integer, "mean_dbm": .number, "sd_db": .number, "heard": .number,
                        "samples": .integer, "comment": .string],
        "outside": ["gateway": .string, "mean_dbm": .number, "sd_db": .number, "heard": .number, "samples": .integer, "comment": .string],
    ]

    /// Unknown keys and values of the wrong JSON type, with their paths (null counts as absent:
    /// the decoder reports a null where a value is required).
    static func shapeIssues(in tree: Any) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func check(_ value: Any, _ kindOf: String, _ path: String) -> [String: Any]? {
            guard let object = value as? [String: Any] else {
                issues.append(ConfigIssue(path: path, message: value is NSNull ? "is null, expected an object" : "has the wrong type, expected an object"))
                return nil
            }
            let known = kinds[kindOf] ?? [:]
            for key in object.keys.sorted() {
                guard let kind = known[key] else {
                    let hint = known.keys.min { ChainConfig.distance($0, key) < ChainConfig.distance($1, key) }
                        .flatMap { ChainConfig.distance($0, key) <= 3 ? " (did you mean \"\($0)\"?)" : nil } ?? ""
                    issues.append(ConfigIssue(path: "\(path).\(key)", message: "unknown key\(hint)"))
                    continue
                }
                let item = object[key]!
                if item is NSNull { continue }
                if !kind.matches(item) {
                    issues.append(ConfigIssue(path: "\(path).\(key)", message: "has the wrong type, expected \(kind.rawValue)"))
                } else if kind == .integer, let x = (item as? NSNumber)?.doubleValue, !(x.rounded() == x && abs(x) < 9_007_199_254_740_992) {
                    issues.append(ConfigIssue(path: "\(path).\(key)", message: "\(item) is not a whole number (within ±2^53)"))
                }
            }
            return object
        }
        guard let root = check(tree, "$", "$") else { return issues }
        for (i, store) in (root["stores"] as? [Any] ?? []).enumerated() {
            guard let store = check(store, "store", "$.stores[\(i)]") else { continue }
            for (j, fingerprint) in (store["fingerprints"] as? [Any] ?? []).enumerated() {
                _ = check(fingerprint, "fingerprint", "$.stores[\(i)].fingerprints[\(j)]")
            }
            for (j, fingerprint) in (store["outside"] as? [Any] ?? []).enumerated() {
                _ = check(fingerprint, "outside", "$.stores[\(i)].outside[\(j)]")
            }
        }
        return issues
    }

    /// Every problem with the values, each with its JSON path; empty when the file is usable
    /// with a chain that has what it names.
    public func validate() -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func issue(_ path: String, _ message: String) { issues.append(ConfigIssue(path: path, message: message)) }
        if stores.isEmpty { issue("$.stores", "no store is calibrated") }
        var storePaths: [Int: String] = [:]
        for (i, store) in stores.enumerated() {
            let path = "$.stores[\(i)]"
            if !(0...65535).contains(store.major) {
                issue("\(path).major", "\(store.major) is out of range 0…65535 (a store is an iBeacon major)")
            }
            if let first = storePaths[store.major] {
                issue("\(path).major", "store \(store.major) is already calibrated at \(first)")
            } else {
                storePaths[store.major] = path
            }
            if store.fingerprints.isEmpty { issue("\(path).fingerprints", "store \(store.major) has no fingerprint") }
            var seen: [String: Int] = [:]
            for (j, fingerprint) in store.fingerprints.enumerated() {
                let fpath = "\(path).fingerprints[\(j)]"
                issues += fingerprint.validate(at: fpath)
                let key = "\(fingerprint.gateway) \(fingerprint.section)"
                if let first = seen[key] {
                    issue(fpath, "gateway \(fingerprint.gateway) in section \(fingerprint.section) already has a fingerprint at \(path).fingerprints[\(first)]")
                } else {
                    seen[key] = j
                }
            }
            issues += Self.outsideIssues(store, at: path)
        }
        return issues
    }

    /// Problems with a store's outside fingerprints, under the store's `path`: none at all when
    /// the key is there, bad values, a gateway given twice.
    static func outsideIssues(_ store: Store, at path: String) -> [ConfigIssue] {
        guard let outside = store.outside else { return [] }
        guard !outside.isEmpty else {
            return [ConfigIssue(path: "\(path).outside", message: "is empty: drop the key, or calibrate with a walk that goes out of the door (docs/CALIBRATION.md)")]
        }
        var issues: [ConfigIssue] = []
        var seen: [String: Int] = [:]
        for (j, fingerprint) in outside.enumerated() {
            let fpath = "\(path).outside[\(j)]"
            issues += pictureIssues(gateway: fingerprint.gateway, meanDBm: fingerprint.meanDBm, sdDB: fingerprint.sdDB,
                                    heard: fingerprint.heard, samples: fingerprint.samples, at: fpath)
            if let first = seen[fingerprint.gateway] {
                issues.append(ConfigIssue(path: fpath, message: "gateway \(fingerprint.gateway) already has an outside fingerprint at \(path).outside[\(first)]"))
            } else {
                seen[fingerprint.gateway] = j
            }
        }
        return issues
    }

    /// Problems with what one gateway hears somewhere (a section, or outside), under `path`.
    static func pictureIssues(gateway: String, meanDBm: Double, sdDB: Double, heard: Double, samples: Int?, at path: String) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func check(_ ok: Bool, _ key: String, _ message: String) {
            if !ok { issues.append(ConfigIssue(path: "\(path).\(key)", message: message)) }
        }
        check(!gateway.isEmpty, "gateway", "is empty: a fingerprint is of one gateway")
        check(meanDBm.isFinite && meanRange.contains(meanDBm), "mean_dbm", "\(meanDBm) dBm is not a level a receiver reports (-127…20)")
        check(sdDB.isFinite && (minimumSD...maximumSD).contains(sdDB), "sd_db",
              "\(sdDB) dB is not 3…30: narrower, one reading a few dB off would rule the section out")
        check(heard.isFinite && heardRange.contains(heard), "heard",
              "\(heard) is not 0.02…0.98: a gateway is never sure to hear, or to miss, a device")
        check((samples ?? 0) >= 0, "samples", "\(samples ?? 0) is negative")
        return issues
    }
}

extension Calibration.Fingerprint {
    /// Problems with one fingerprint's values, under `path`.
    func validate(at path: String) -> [ConfigIssue] {
        var issues = Calibration.pictureIssues(gateway: gateway, meanDBm: meanDBm, sdDB: sdDB, heard: heard, samples: samples, at: path)
        if !(0...65535).contains(section) {
            issues.insert(ConfigIssue(path: "\(path).section", message: "\(section) is out of range 0…65535 (a section is an iBeacon minor)"),
                          at: gateway.isEmpty ? 1 : 0)
        }
        return issues
    }
}
