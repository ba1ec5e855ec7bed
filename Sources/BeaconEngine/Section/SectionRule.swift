/// A way to decide which section of its store a device is in, from the radio evidence: one type
/// in one file, chosen by `tuning.rule` in ``SectionRules/make(for:)``.
///
/// The engine gathers the evidence (``SectionEvidence``) whenever a device of the store is heard,
/// and again at each sweep while the rule ``isWatching(_:)`` a challenger; the rule answers with a
/// ``SectionVerdict`` and keeps what it needs between decisions in its own ``DeviceState``, one per
/// device. Moving the device, its events and occupancy are the engine's — and so is taking it out
/// of its store when a rule that knows what just outside looks like says it left.
protocol SectionRule: Sendable {
    /// What the rule remembers of one device between decisions.
    associatedtype DeviceState: Sendable

    /// A device's state before the rule has seen it.
    var initialState: DeviceState { get }

    /// Whether the rule weighs every fresh link and missed gateway (``SectionEvidence/links``,
    /// ``SectionEvidence/missed``), which the engine then gathers; otherwise only the strongest
    /// links per section.
    var weighsEveryLink: Bool { get }

    /// Where the device should be at `time`, on `evidence` about its store (which has at least
    /// one fresh link). `evidence.current` is nil for a device in no section yet.
    func decide(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict

    /// The first section of a visit, as the device enters the store at `time`.
    func enter(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict

    /// The device was moved to another section at `time`.
    func moved(_ state: inout DeviceState, at time: EventTime)

    /// The device entered or left a store: a challenger it was gathering evidence for is gone.
    func stopWatching(_ state: inout DeviceState)

    /// Whether a challenger is gathering evidence: the sweep looks at such devices again.
    func isWatching(_ state: DeviceState) -> Bool

    /// How sure the rule is that the device is in `section` of `store`; nil leaves the last figure.
    func confidence(_ state: DeviceState, store: Int, section: Int?, evidence: SectionEvidence) -> Double?

    /// Whether a device outside may enter `evidence.store` on this evidence (which has at least
    /// one fresh link of the store). Asked only for stores where ``needsConsent(store:)``.
    func admits(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> Bool

    /// Whether entering `store` needs the rule's consent (``admits(_:evidence:at:)``) besides the
    /// sightings the engine counts: the rule knows what just outside the store looks like.
    func needsConsent(store: Int) -> Bool

    /// Whether the rule wants every sighting (``heard(_:_:)``), not only the filtered links.
    var hearsEverySighting: Bool { get }

    /// A sighting of the device, calibrated, as it arrives (rules that keep their own window).
    func heard(_ state: inout DeviceState, _ sighting: SectionSighting)
}

/// One calibrated sighting, as a rule that keeps its own window reads it.
struct SectionSighting: Sendable {
    /// Indices of the gateway, its section and its store.
    var gateway: Int32
    var section: Int32
    var store: Int32
    /// Calibrated RSSI, dBm.
    var rssi: Double
    /// The sighting's event time.
    var time: EventTime
}

/// What a section rule decided.
struct SectionVerdict: Sendable, Equatable {
    /// Where a verdict sends the device.
    enum Destination: Sendable, Equatable {
        /// Into this section (an index into ``Chain/sections``) of its store.
        case section(Int)
        /// Out of its store: the rule's picture of just outside it fits best by the rule's odds.
        case outside
    }

    /// Where the device goes; nil: it stays.
    var destination: Destination?
    /// The rule's confidence in where the device now is, when it has one to record.
    var confidence: Double?

    /// A verdict moving the device to `section` (nil: it stays).
    init(section: Int? = nil, confidence: Double? = nil) {
        destination = section.map(Destination.section)
        self.confidence = confidence
    }

    /// The section to move the device to; nil when it stays or leaves.
    var section: Int? {
        if case .section(let section)? = destination { return section }
        return nil
    }

    /// Stay where it is.
    static let stay = SectionVerdict()

    /// Move to `section`.
    static func move(to section: Int, confidence: Double? = nil) -> SectionVerdict {
        SectionVerdict(section: section, confidence: confidence)
    }

    /// Leave the store.
    static func leave(confidence: Double? = nil) -> SectionVerdict {
        var verdict = SectionVerdict(confidence: confidence)
        verdict.destination = .outside
        return verdict
    }
}

extension SectionRule {
    /// The usual first section: the one with the strongest fresh link.
    func enter(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        evidence.strongest.map { .move(to: $0.section) } ?? .stay
    }

    /// P(the device's section really is the strongest): its lead over the best other section, in
    /// units of the two estimates' combined standard deviation, through the normal CDF.
    func confidence(_ state: DeviceState, store: Int, section: Int?, evidence: SectionEvidence) -> Double? {
        evidence.leadConfidence(of: section)
    }

    /// Most rules leave entering a store to the sightings the engine counts.
    func admits(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> Bool { true }

    func needsConsent(store: Int) -> Bool { false }

    /// Most rules weigh the filtered links only.
    var hearsEverySighting: Bool { false }

    func heard(_ state: inout DeviceState, _ sighting: SectionSighting) {}
}
