/// A site's calibration: what each gateway of a store hears when a device is in each of the
/// store's sections, learnt from a walk with a known truth (`beacon-aggregator calibrate`), for the
/// `fingerprint` rule.
///
/// This is the file format (docs/CALIBRATION.md), read as it is written; the chain config names
/// the file in its `calibration` key. It is read and checked by ``Calibration/parse(_:against:)``,
/// on its own and against the chain (``Calibration/validate(against:)``). JSON keys are snake_case
/// and documented per property; unknown keys are errors.
///
/// A fingerprint describes the gateway's *calibrated* level (its report plus the chain's
/// `calibration_db` for it) as the engine's per-link filter estimates it: change a gateway's
/// `calibration_db` and its fingerprints must be learnt again.
public struct Calibration: Codable, Sendable, Equatable {
    /// `comment` (optional): where the calibration came from; the learner writes the walk's files.
    public var comment: String?
    /// `stores`: the calibrated stores. A store of the chain not listed here has no fingerprints,
    /// and the `fingerprint` rule decides its sections as `hysteresis` does.
    public var stores: [Store]

    /// A calibration.
    public init(comment: String? = nil, stores: [Store]) {
        self.comment = comment
        self.stores = stores
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case comment, stores
    }

    /// One store's fingerprints: one for every (gateway of the store, section of the store), and
    /// optionally one per gateway for just outside the store.
    public struct Store: Codable, Sendable, Equatable {
        /// `major`: the store, as in the chain config.
        public var major: Int
        /// `fingerprints`: one per gateway of the store per section of the store, none missing.
        public var fingerprints: [Fingerprint]
        /// `outside` (optional): one per gateway of the store, none missing, when the walk went out
        /// of the door and stood outside while the store's gateways still heard it; the
        /// `fingerprint` rule then decides when a device has left the store. Without it the
        /// store's exits are the silence rule's and the street test's alone.
        public var outside: [OutsideFingerprint]?
        /// `walking_change_db2_per_s` (optional): how fast a walking device's filtered levels change
        /// in the store — the mean squared change of a link's level per second while the tag walked,
        /// dB²/s (0.01…1000). The `fingerprint` rule tells a device that stands from one that walks
        /// by it and counts a standing device's evidence less; without it every second counts in full.
        public var walkingChange: Double?
        /// `tag_measured_power_dbm` (optional): the measured power (the level at 1 m) the walking
        /// tag's adverts carried, dBm (−127…20); absent when they carried none, or tags that claimed
        /// different powers walked the store. The `fingerprint` rule expects a device whose adverts
        /// say it is louder or quieter than this to be heard so until its own links say otherwise;
        /// without it every device is expected to be heard as the tag was.
        public var tagMeasuredPower: Double?
        /// `phones_offset_db` (optional): how much louder than the walking tag the store's phones
        /// were heard, beyond what their adverts' measured power says, dB (−30…30): measured by
        /// `calibrate --traffic` from a recording of the store's ordinary traffic. The `fingerprint`
        /// rule expects a new phone this much louder, as it would once the store's own phones had
        /// shown it; without it, it starts from the tag's level and learns it from the phones.
        public var phonesOffset: Double?

        /// A store's fingerprints.
        public init(major: Int, fingerprints: [Fingerprint], outside: [OutsideFingerprint]? = nil, walkingChange: Double? = nil,
                    tagMeasuredPower: Double? = nil, phonesOffset: Double? = nil) {
            self.major = major
            self.fingerprints = fingerprints
            self.outside = outside
            self.walkingChange = walkingChange
            self.tagMeasuredPower = tagMeasuredPower
            self.phonesOffset = phonesOffset
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case major, fingerprints, outside, walkingChange = "walking_change_db2_per_s", tagMeasuredPower = "tag_measured_power_dbm"
            case phonesOffset = "phones_offset_db"
        }
    }

    /// What one gateway hears of a device in one section: a Gaussian over its filtered level
    /// when it hears it, and how often it does.
    public struct Fingerprint: Codable, Sendable, Equatable {
        /// `gateway`: the gateway's id, as in the chain config.
        public var gateway: String
        /// `section`: the minor of the section of the store the device is in.
        public var section: Int
        /// `mean_dbm`: the mean filtered level when the gateway hears the device there, dBm
        /// (−127…20).
        public var meanDBm: Double
        /// `sd_db`: its standard deviation, dB (3…30): below 3 dB one reading a few dB off would
        /// rule the section out, so the learner floors it there.
        public var sdDB: Double
        /// `heard`: the share of the time the gateway hears the device there (0.02…0.98): a gateway
        /// that hears someone lately but not this device is evidence too, never proof.
        public var heard: Double
        /// `samples` (optional): how many half-second samples of the walk this was learnt from;
        /// 0 where the walk never went (then the mean, deviation and share are wide defaults).
        public var samples: Int?

        /// A fingerprint.
        public init(gateway: String, section: Int, meanDBm: Double, sdDB: Double, heard: Double, samples: Int? = nil) {
            self.gateway = gateway
            self.section = section
            self.meanDBm = meanDBm
            self.sdDB = sdDB
            self.heard = heard
            self.samples = samples
        }

        enum CodingKeys: String, CodingKey, CaseIterable {
            case gateway, section, meanDBm = "mean_dbm", sdDB = "sd_db", heard, samples
        }
    }

    /// The least standard deviation of a fingerprint, dB.
    public static let minimumSD = 3.0
    /// The widest standard deviation of a fingerprint, dB: wider says nothing.
    public static let maximumSD = 30.0
    /// The range of `heard`: a gateway is never certain to hear, or to miss, a device.
    public static let heardRange: ClosedRange<Double> = 0.02...0.98
    /// The range of `walking_change_db2_per_s`.
    public static let walkingChangeRange: ClosedRange<Double> = 0.01...1000
    /// The range of `tag_measured_power_dbm`: what the wire carries as an advert's measured power.
    public static let measuredPowerRange: ClosedRange<Double> = -127...20
    /// The range of `phones_offset_db`: phones differ from one another by several dB, from a tag
    /// by more only when the tag is not a phone's kind of radio at all.
    public static let phonesOffsetRange: ClosedRange<Double> = -30...30
    /// The range of `mean_dbm`: what a receiver can report.
    public static let meanRange: ClosedRange<Double> = -127...20
}
