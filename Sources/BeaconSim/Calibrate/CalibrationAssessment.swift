public import BeaconCore
public import BeaconEngine

/// How much a walk improved the fit, per calibrated store: the uncalibrated rule against the
/// `fingerprint` rule on the walk itself (optimistic: learnt and scored on the same data); held
/// out — learnt on part of the walks, scored on the rest (another tag's walk when several tags
/// walked, else ``WalkFolds``), which is what to expect on days the walk did not see; and the same
/// held-out data as other phones would send it, louder and quieter than the tag
/// (``otherPhoneOffsets``). The verdict (``StoreFigures/verdict``) says whether to switch it on.
public struct CalibrationAssessment: Sendable {
    /// The uncalibrated rule and the calibrated one on the same data.
    public struct Comparison: Sendable {
        public var before: EvaluationReport
        public var after: EvaluationReport
    }

    /// One store's figures.
    public struct StoreFigures: Sendable {
        /// The store.
        public var major: StoreNumber
        /// The uncalibrated rule compared against.
        public var baseline: Tuning.Rule
        /// Samples per section of the store (minor, samples): where the walk went, how long.
        public var sectionSamples: [(minor: SectionNumber, samples: Int)]
        /// Samples outside every store while the store's gateways heard the tag.
        public var outsideSamples: Int
        /// How fast the walking tag's levels changed (`walking_change_db2_per_s`); nil when the
        /// walk had too few changes to say.
        public var walkingChange: Double?
        /// The whole walk.
        public var walk: Comparison
        /// Held out, when the walks are long enough to split.
        public var heldOut: Comparison?
        /// The held-out data as other phones would send it (``otherPhoneOffsets`` from the tag, or
        /// from the store's phones when its traffic was measured: ``phoneOffsets``).
        public var otherPhones: Comparison?
        /// The offsets, dB against the tag, the other phones were scored at.
        public var phoneOffsets = CalibrationAssessment.otherPhoneOffsets
        /// What the store's traffic said of its phones, when it was measured.
        public var traffic: TrafficLevels.StoreOffset?
        /// How restless the uncalibrated rule and the calibration were with the traffic's phones.
        public var trafficChanges: TrafficComparison?

        /// Whether to switch the calibration on for the store (``Verdict``).
        public var verdict: Verdict { Verdict(heldOut: heldOut, otherPhones: otherPhones, traffic: trafficChanges) }
    }

    /// Per calibrated store, in the chain's order.
    public var stores: [StoreFigures]
    /// How the held-out figures were made, when they were.
    public var heldOutMethod: String?

    /// Fewer samples than this in a section (``WalkSampler/interval`` each) and the output says
    /// to walk it longer: its fingerprints are the wide defaults or little better.
    public static let thinSection = 40
    /// How much louder and quieter than the walking tag the other phones are taken to be, dB:
    /// phones differ from a tag by several dB (docs/TUNING.md, "Devices").
    public static let otherPhoneOffsets = [-6, 6]

    /// The offsets other phones are scored at in a store whose `traffic` was measured: its
    /// phones' level, and as far either side of it as ``otherPhoneOffsets`` lie either side of
    /// the tag's.
    static func phoneOffsets(_ traffic: TrafficLevels.StoreOffset?) -> [Int] {
        guard let traffic else { return otherPhoneOffsets }
        let centre = Int(traffic.offset.rounded())
        return ([0] + otherPhoneOffsets).map { $0 + centre }.sorted()
    }

    /// Replays `recording` with the uncalibrated rule and with `calibration`, and with one
    /// calibration per held-out fold — as the walking tags and as other phones. `walks` are the
    /// walking tags with their samples; `parts` the time spans of the walk's separate recordings;
    /// `traffic` what the stores' traffic said of their phones (``TrafficLevels``), where measured,
    /// and `trafficBatches` that traffic, replayed with both rules (``TrafficChanges``).
    public static func assess(config: ChainConfig, recording: Recording, walks: [(device: DeviceID, samples: [WalkSample])],
                              calibration: Calibration, parts: [ClosedRange<Int64>] = [],
                              traffic: [TrafficLevels.StoreOffset] = [], trafficBatches: [SimulatedBatch] = []) throws -> CalibrationAssessment {
        let chain = try WalkCalibration.uncalibrated(config).resolve()
        let folds = HeldOutFolds.split(walks, recording: recording, parts: parts)
        let measured = Dictionary(uniqueKeysWithValues: traffic.map { ($0.major, $0) })
        let offsets = otherPhoneOffsets + traffic.flatMap { phoneOffsets($0) }
        let replays = try CalibrationReplays(config: config, recording: recording, calibration: calibration, chain: chain,
                                             folds: folds?.folds ?? [], offsets: offsets)
        let samples = walks.flatMap(\.samples)
        let restless = trafficBatches.isEmpty ? [:] : try TrafficComparison.replay(config: config, calibration: calibration, traffic: trafficBatches)
        var stores: [StoreFigures] = []
        for store in calibration.stores {
            let major = StoreNumber(store.major)
            guard let index = chain.storeIndex[major] else { continue }
            let counts = chain.stores[index].sections.map { s in (chain.sections[s].minor, samples.filter { $0.section == s }.count) }
            let outside = samples.filter { $0.place == .outside(store: index) }.count
            var figures = StoreFigures(major: major, baseline: chain.tuning.rule, sectionSamples: counts, outsideSamples: outside,
                                       walkingChange: store.walkingChange, walk: replays.whole(recording: recording, walks: walks, store: major))
            figures.traffic = measured[major]
            figures.trafficChanges = restless[major]
            figures.phoneOffsets = phoneOffsets(measured[major])
            if let folds {
                figures.heldOut = replays.heldOutAsTag(folds.folds, store: major)
                figures.otherPhones = replays.heldOutAsPhones(folds.folds, store: major, offsets: figures.phoneOffsets)
            }
            stores.append(figures)
        }
        return CalibrationAssessment(stores: stores, heldOutMethod: folds?.method)
    }
}

/// Whether a store's calibration should be switched on: only when, held out, it beats the
/// uncalibrated rule both for the walking tag and for other phones, and, where the store's
/// traffic was replayed, moves its phones between sections no more often than chance explains.
public enum Verdict: Sendable, Equatable {
    /// Better held out, for the tag and for other phones.
    case switchOn
    /// Not better held out for one of them: the chain keeps its uncalibrated rule for the store.
    case keepDefault(reason: String)
    /// The walk was too short to hold part of it out: nothing says it is better.
    case unknown

    /// The least gain, in points of section accuracy, that counts as better.
    public static let minimumGain = 1.0

    init(heldOut: CalibrationAssessment.Comparison?, otherPhones: CalibrationAssessment.Comparison?,
         traffic: TrafficComparison? = nil) {
        guard let heldOut, let otherPhones else {
            self = .unknown
            return
        }
        let tag = (heldOut.after.sectionAccuracy - heldOut.before.sectionAccuracy) * 100
        let phones = (otherPhones.after.sectionAccuracy - otherPhones.before.sectionAccuracy) * 100
        if tag < Self.minimumGain || phones < Self.minimumGain {
            let which = tag < Self.minimumGain ? "for the tag that walked" : "for other phones"
            self = .keepDefault(reason: String(format: "held out it is not better %@ (%+.1f points for the tag, %+.1f for other phones)", which, tag, phones))
        } else if otherPhones.after.falseExits > otherPhones.before.falseExits {
            self = .keepDefault(reason: "held out, as other phones, it takes people out of the store who are still in it (\(otherPhones.before.falseExits) → \(otherPhones.after.falseExits) false exits)")
        } else if let traffic, let surplus = traffic.surplus, surplus.isBeyondChance {
            self = .keepDefault(reason: String(format: "on its traffic it moves the phones between sections more often (%d → %d section changes of %d phones, more than twice the ±%.0f their own differences explain)",
                                               traffic.before.sectionChanges, traffic.after.sectionChanges, surplus.phones, surplus.standardError))
        } else {
            self = .switchOn
        }
    }
}
