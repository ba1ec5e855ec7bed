public import BeaconCore

extension Chain {
    /// Indexes `config`'s calibration into ``fingerprints``, one entry per store (nil where the
    /// calibration covers none). Throws, naming the calibration file, when the calibration does not
    /// fit the chain; and when the config names a file whose contents were never read (the engine
    /// reads no file: ``ChainConfig/calibration`` must be filled in, as the aggregator's
    /// `ChainConfig.load(path:)` does).
    mutating func attach(_ config: ChainConfig) throws(ConfigError) {
        fingerprints = Array(repeating: nil, count: stores.count)
        guard let calibration = config.calibration else {
            if let file = config.calibrationFile {
                let message = file.isEmpty ? "is empty: name the calibration file, or drop the key"
                    : "names \"\(file)\", which was not read: load the chain with ChainConfig.load(path:), which reads it"
                throw ConfigError(issues: [ConfigIssue(path: "$.calibration", message: message)])
            }
            return
        }
        let issues = calibration.validate() + calibration.validate(against: config)
        guard issues.isEmpty else { throw ConfigError(file: config.calibrationFile, issues: issues) }
        for store in calibration.stores {
            guard let index = storeIndex[StoreNumber(store.major)] else { continue }
            fingerprints[index] = StoreFingerprints(store, chain: self, index: index)
        }
    }

    /// The majors of the stores with outside fingerprints — whose exits the `fingerprint` rule
    /// decides while their gateways still hear the device — in the chain's order.
    public var storesWithOutside: [StoreNumber] {
        stores.indices.filter { $0 < fingerprints.count && fingerprints[$0]?.outside != nil }.map { stores[$0].major }
    }

    /// The majors of the stores with fingerprints, in the chain's order.
    public var calibratedStores: [StoreNumber] {
        stores.indices.filter { $0 < fingerprints.count && fingerprints[$0] != nil }.map { stores[$0].major }
    }
}
