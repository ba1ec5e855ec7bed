public import BeaconCore

extension Calibration {
    /// Every way this calibration does not fit `chain`, each with its JSON path in the calibration
    /// file: a store the chain does not have, a gateway not in the chain or installed in another
    /// store, a section the store does not have, and a gateway of a calibrated store without a
    /// fingerprint for every section of it, or — when the store has outside fingerprints —
    /// without an outside one (the chain changed since the walk: calibrate again).
    public func validate(against chain: ChainConfig) -> [ConfigIssue] {
        var issues: [ConfigIssue] = []
        func issue(_ path: String, _ message: String) { issues.append(ConfigIssue(path: path, message: message)) }
        let chainStores = Dictionary(chain.stores.map { ($0.major, $0) }, uniquingKeysWith: { first, _ in first })
        let gatewayStore = Dictionary(chain.gateways.map { ($0.id, $0.store) }, uniquingKeysWith: { first, _ in first })
        for (i, store) in stores.enumerated() {
            let path = "$.stores[\(i)]"
            guard let chainStore = chainStores[store.major] else {
                issue("\(path).major", "store \(store.major) is not in the chain (it has \(Self.list(chain.stores.map(\.major))))")
                continue
            }
            let minors = Set(chainStore.sections.map(\.minor))
            var covered: Set<String> = []
            for (j, fingerprint) in store.fingerprints.enumerated() {
                let fpath = "\(path).fingerprints[\(j)]"
                if let installed = gatewayStore[fingerprint.gateway] {
                    if installed != store.major {
                        issue("\(fpath).gateway", "gateway \(fingerprint.gateway) is installed in store \(installed), not \(store.major)")
                    }
                } else {
                    issue("\(fpath).gateway", "gateway \(fingerprint.gateway) is not in the chain")
                }
                if !minors.contains(fingerprint.section) {
                    issue("\(fpath).section", "store \(store.major) has no section \(fingerprint.section) (it has \(Self.list(chainStore.sections.map(\.minor))))")
                }
                covered.insert("\(fingerprint.gateway) \(fingerprint.section)")
            }
            for gateway in chain.gateways where gateway.store == store.major {
                let missing = chainStore.sections.map(\.minor).filter { !covered.contains("\(gateway.id) \($0)") }
                if !missing.isEmpty {
                    issue("\(path).fingerprints", "gateway \(gateway.id) has no fingerprint for section\(missing.count == 1 ? "" : "s") \(Self.list(missing)) of store \(store.major): the chain changed since the walk? Calibrate the store again")
                }
            }
            issues += outsideIssues(store, at: path, chain: chain, installedIn: gatewayStore)
        }
        return issues
    }

    /// How a store's outside fingerprints do not fit `chain`: a gateway not in the chain or
    /// installed in another store, a gateway of the store without one.
    func outsideIssues(_ store: Store, at path: String, chain: ChainConfig, installedIn gatewayStore: [String: Int]) -> [ConfigIssue] {
        guard let outside = store.outside, !outside.isEmpty else { return [] }
        var issues: [ConfigIssue] = []
        for (j, fingerprint) in outside.enumerated() {
            let fpath = "\(path).outside[\(j)].gateway"
            if let installed = gatewayStore[fingerprint.gateway] {
                if installed != store.major {
                    issues.append(ConfigIssue(path: fpath, message: "gateway \(fingerprint.gateway) is installed in store \(installed), not \(store.major)"))
                }
            } else {
                issues.append(ConfigIssue(path: fpath, message: "gateway \(fingerprint.gateway) is not in the chain"))
            }
        }
        let covered = Set(outside.map(\.gateway))
        let missing = chain.gateways.filter { $0.store == store.major && !covered.contains($0.id) }.map(\.id)
        if !missing.isEmpty {
            let shown = missing.prefix(8).joined(separator: ", ") + (missing.count > 8 ? " and \(missing.count - 8) more" : "")
            issues.append(ConfigIssue(path: "\(path).outside", message: "gateway\(missing.count == 1 ? "" : "s") \(shown) of store \(store.major) ha\(missing.count == 1 ? "s" : "ve") no outside fingerprint: the chain changed since the walk? Calibrate the store again"))
        }
        return issues
    }

    /// `1, 2, 3`, or the first few and how many more.
    static func list(_ numbers: [Int]) -> String {
        let shown = numbers.prefix(8).map(String.init).joined(separator: ", ")
        return numbers.count > 8 ? "\(shown) and \(numbers.count - 8) more" : shown
    }
}
