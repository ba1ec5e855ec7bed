public import BeaconCore

extension Calibration {
    /// Reads and validates a calibration file's contents, as ``ChainConfig/parse(_:)`` does a
    /// chain's: every problem at once, each with its line, column and JSON path — unknown keys
    /// (with a "did you mean"), keys given twice, wrong types, numbers out of range, repeated
    /// fingerprints — and, given the `chain`, whether the stores, gateways and sections it names
    /// are the chain's (``validate(against:)``). At most ``ConfigReader/defaultLimit`` problems:
    /// a huge broken file is refused at its first ones. The caller reads the file and names it in
    /// the error.
    public static func parse(_ bytes: [UInt8], against chain: ChainConfig? = nil) throws(ConfigError) -> Calibration {
        let (root, reader) = try ConfigReader.parse(bytes)
        let calibration = reader.value(root).object { Calibration(reading: &$0) }
        guard let calibration, reader.valuesAreUsable else { throw reader.error() }
        reader.report(checked: calibration.validate(limit: reader.room), in: root)
        if let chain, !reader.hasIssues {
            reader.report(checked: calibration.validate(against: chain), in: root)
        }
        if reader.hasIssues { throw reader.error() }
        return calibration
    }

    /// Reads the file's root object; nil where a required value cannot be used (reported).
    init?(reading o: inout ConfigObject) {
        let stores = o.required("stores", expecting: "an array")?.array { $0.object { Store(reading: &$0) } }
        let comment = o.optional("comment", as: String.self)
        guard let stores else { return nil }
        self.init(comment: comment, stores: stores)
    }

    /// Every problem with the values, each with its JSON path; empty when the file is usable
    /// with a chain that has what it names.
    public func validate() -> [ConfigIssue] { validate(limit: .max) }

    /// The first `limit` or so problems with the values: a file of a million broken fingerprints
    /// is refused at its first.
    func validate(limit: Int) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func issue(_ path: String, _ message: String) { issues.append(ConfigIssue(path: path, message: message)) }
        if stores.isEmpty { issue("$.stores", "no store is calibrated") }
        var storePaths: [Int: String] = [:]
        for (i, store) in stores.enumerated() where issues.count < limit {
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
            for (j, fingerprint) in store.fingerprints.enumerated() where issues.count < limit {
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
            if let change = store.walkingChange, !(change.isFinite && Self.walkingChangeRange.contains(change)) {
                issue("\(path).walking_change_db2_per_s", "\(change) dB²/s is not 0.01…1000: calibrate the store again")
            }
            if let power = store.tagMeasuredPower, !(power.isFinite && Self.measuredPowerRange.contains(power)) {
                issue("\(path).tag_measured_power_dbm", "\(power) dBm is not a measured power the wire carries (-127…20)")
            }
            if let offset = store.phonesOffset, !(offset.isFinite && Self.phonesOffsetRange.contains(offset)) {
                issue("\(path).phones_offset_db", "\(offset) dB is not -30…30: measure the store's traffic again (calibrate --traffic)")
            }
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

extension Calibration.Store {
    /// Reads a store's object; nil where a required value cannot be used (reported).
    init?(reading o: inout ConfigObject) {
        let major = o.required("major", as: Int.self)
        let fingerprints = o.required("fingerprints", expecting: "an array")?.array { $0.object { Calibration.Fingerprint(reading: &$0) } }
        let outside = o.member("outside")?.array { $0.object { Calibration.OutsideFingerprint(reading: &$0) } }
        let walkingChange = o.optional("walking_change_db2_per_s", as: Double.self)
        let tagMeasuredPower = o.optional("tag_measured_power_dbm", as: Double.self)
        let phonesOffset = o.optional("phones_offset_db", as: Double.self)
        o.comment()
        guard let major, let fingerprints else { return nil }
        self.init(major: major, fingerprints: fingerprints, outside: outside, walkingChange: walkingChange, tagMeasuredPower: tagMeasuredPower,
                  phonesOffset: phonesOffset)
    }
}

extension Calibration.Fingerprint {
    /// Reads a fingerprint's object; nil where a required value cannot be used (reported).
    init?(reading o: inout ConfigObject) {
        let gateway = o.required("gateway", as: String.self)
        let section = o.required("section", as: Int.self)
        let meanDBm = o.required("mean_dbm", as: Double.self)
        let sdDB = o.required("sd_db", as: Double.self)
        let heard = o.required("heard", as: Double.self)
        let samples = o.optional("samples", as: Int.self)
        o.comment()
        guard let gateway, let section, let meanDBm, let sdDB, let heard else { return nil }
        self.init(gateway: gateway, section: section, meanDBm: meanDBm, sdDB: sdDB, heard: heard, samples: samples)
    }
}

extension Calibration.OutsideFingerprint {
    /// Reads an outside fingerprint's object; nil where a required value cannot be used (reported).
    init?(reading o: inout ConfigObject) {
        let gateway = o.required("gateway", as: String.self)
        let meanDBm = o.required("mean_dbm", as: Double.self)
        let sdDB = o.required("sd_db", as: Double.self)
        let heard = o.required("heard", as: Double.self)
        let samples = o.optional("samples", as: Int.self)
        o.comment()
        guard let gateway, let meanDBm, let sdDB, let heard else { return nil }
        self.init(gateway: gateway, meanDBm: meanDBm, sdDB: sdDB, heard: heard, samples: samples)
    }
}
