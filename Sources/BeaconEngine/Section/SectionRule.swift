/// A way to decide which section of its store a device is in, from the radio evidence: one type
/// in one file, chosen by `tuning.rule` in ``SectionRules/make(for:)``.
///
/// The engine gathers the evidence (``SectionEvidence``: the strongest links always, and what the
/// rule ``reads`` besides) whenever a device of the store is heard, and again at each sweep while
/// the rule ``isWatching(_:)`` it; the rule answers with a ``SectionVerdict``. A rule keeps what it
/// needs between decisions in its own memory of each device (``DeviceMemory``), by track. A verdict
/// that moves the device is carried out as given: the rule starts afresh from the new section as
/// it returns it. Moving the device, its events and occupancy are the engine's.
protocol SectionRule: Sendable {
    /// What the rule reads besides the strongest links.
    var reads: SectionEvidence.Extras { get }

    /// Track `track` now holds a device the rule has not seen.
    mutating func start(_ track: Int)

    /// Where the device on `track` should be at `time`, on `evidence` about its store (which has
    /// at least one fresh link).
    mutating func decide(_ track: Int, _ evidence: SectionEvidence, at time: EventTime) -> SectionVerdict

    /// The device entered or left a store: a challenger it was gathering evidence for is gone.
    mutating func endVisit(_ track: Int)

    /// Whether a challenger is gathering evidence: the sweep looks at the device again.
    func isWatching(_ track: Int) -> Bool

    /// How sure the rule is that the device is in `section` of `evidence.store` (nil: in none
    /// yet); nil leaves the last figure.
    func confidence(_ track: Int, in section: Int?, _ evidence: SectionEvidence) -> Double?
}

/// A rule that knows what just outside a store sounds like: a device outside enters such a store
/// only once the rule, asked with ``SectionEvidence/Standing/outside``, moves it to a section —
/// besides the sightings the engine counts.
protocol EntryConsent: SectionRule {
    /// Whether entering `store` needs the rule's consent.
    func judgesEntry(to store: Int) -> Bool
}

extension SectionRule {
    /// P(the device's section really is the strongest): the lead of its strongest link over the
    /// best other section's (``SectionEvidence/leadConfidence(of:)``).
    func confidence(_ track: Int, in section: Int?, _ evidence: SectionEvidence) -> Double? {
        evidence.leadConfidence(of: section)
    }
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

    /// The section to move the device to; nil when it stays or leaves.
    var section: Int? {
        if case .section(let section)? = destination { return section }
        return nil
    }

    /// Stay where it is.
    static let stay = SectionVerdict()

    /// Stay, with the rule's confidence in where it is.
    static func stay(confidence: Double?) -> SectionVerdict { SectionVerdict(destination: nil, confidence: confidence) }

    /// Move to `section`.
    static func move(to section: Int, confidence: Double? = nil) -> SectionVerdict {
        SectionVerdict(destination: .section(section), confidence: confidence)
    }

    /// Leave the store.
    static func leave(confidence: Double? = nil) -> SectionVerdict { SectionVerdict(destination: .outside, confidence: confidence) }
}

/// A rule's memory of every device, by track: one `State` each, the rule's initial one for a
/// device it has not seen.
struct DeviceMemory<State: Sendable>: Sendable {
    private var states: [State] = []
    private let initial: State

    init(_ initial: State) { self.initial = initial }

    /// The memory of the device on `track`.
    subscript(track: Int) -> State {
        get { states[track] }
        set { states[track] = newValue }
    }

    /// The device on `track` starts from the initial state.
    mutating func start(_ track: Int) {
        if track < states.count {
            states[track] = initial
        } else {
            states.append(contentsOf: repeatElement(initial, count: track + 1 - states.count))
        }
    }

    /// Takes the memory of the device on `track` out, leaving the initial state: changed and put
    /// back (through the subscript), its arrays are changed in place rather than copied.
    mutating func take(_ track: Int) -> State {
        let state = states[track]
        states[track] = initial
        return state
    }
}
