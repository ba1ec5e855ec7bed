extension Calibration {
    /// What one gateway of a store hears of a device just outside the store — out of its door, on
    /// the pavement in front of its window — at the moments when some gateway of the store still
    /// hears it: a Gaussian over its filtered level when it hears it, and how often it does. The
    /// `fingerprint` rule weighs it as one more section, "outside", and the device leaves the
    /// store when that state holds the rule's odds over every section.
    public struct OutsideFingerprint: Codable, Sendable, Equatable {
        /// `gateway`: the gateway's id, as in the chain config.
        public var gateway: String
        /// `mean_dbm`: the mean filtered level when the gateway hears the device outside, dBm
        /// (−127…20).
        public var meanDBm: Double
        /// `sd_db`: its standard deviation, dB (3…30), as for a section.
        public var sdDB: Double
        /// `heard`: the share of those moments in which this gateway hears the device
        /// (0.02…0.98). Counted only while some gateway of the store hears it: the rule weighs
        /// nothing when none does, and the silence rule decides then.
        public var heard: Double
        /// `samples` (optional): how many half-second samples outside it was learnt from.
        public var samples: Int?

        /// An outside fingerprint.
        public init(gateway: String, meanDBm: Double, sdDB: Double, heard: Double, samples: Int? = nil) {
            self.gateway = gateway
            self.meanDBm = meanDBm
            self.sdDB = sdDB
            self.heard = heard
            self.samples = samples
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case gateway, meanDBm = "mean_dbm", sdDB = "sd_db", heard, samples
        }
    }
}
