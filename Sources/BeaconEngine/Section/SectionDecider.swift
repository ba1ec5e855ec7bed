/// A section rule together with its per-device memory, behind one existential so the engine
/// holds whichever rule the chain configures. Devices are addressed by track index.
protocol SectionDecider: Sendable {
    /// See ``SectionRule/weighsEveryLink``.
    var weighsEveryLink: Bool { get }
    /// A track (new, or reused for another device) starts from the rule's initial state.
    mutating func reset(track: Int)
    /// See ``SectionRule/decide(_:evidence:at:)``.
    mutating func decide(track: Int, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict
    /// See ``SectionRule/enter(_:evidence:at:)``.
    mutating func enter(track: Int, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict
    /// See ``SectionRule/moved(_:at:)``.
    mutating func moved(track: Int, at time: EventTime)
    /// See ``SectionRule/stopWatching(_:)``.
    mutating func stopWatching(track: Int)
    /// See ``SectionRule/isWatching(_:)``.
    func isWatching(track: Int) -> Bool
    /// See ``SectionRule/confidence(_:store:section:evidence:)``.
    func confidence(track: Int, store: Int, section: Int?, evidence: SectionEvidence) -> Double?
    /// See ``SectionRule/admits(_:evidence:at:)``.
    mutating func admits(track: Int, evidence: SectionEvidence, at time: EventTime) -> Bool
    /// See ``SectionRule/needsConsent(store:)``.
    func needsConsent(store: Int) -> Bool
    /// See ``SectionRule/hearsEverySighting``.
    var hearsEverySighting: Bool { get }
    /// See ``SectionRule/heard(_:_:)``.
    mutating func heard(track: Int, _ sighting: SectionSighting)
}

/// A rule and its devices' states, by track index.
struct SectionRuleSlot<Rule: SectionRule>: SectionDecider {
    let rule: Rule
    private var states: [Rule.DeviceState] = []

    init(_ rule: Rule) { self.rule = rule }

    var weighsEveryLink: Bool { rule.weighsEveryLink }

    mutating func reset(track: Int) {
        if track < states.count {
            states[track] = rule.initialState
        } else {
            states.append(contentsOf: repeatElement(rule.initialState, count: track + 1 - states.count))
        }
    }

    mutating func decide(track: Int, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        rule.decide(&states[track], evidence: evidence, at: time)
    }

    mutating func enter(track: Int, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        rule.enter(&states[track], evidence: evidence, at: time)
    }

    mutating func moved(track: Int, at time: EventTime) { rule.moved(&states[track], at: time) }

    mutating func stopWatching(track: Int) { rule.stopWatching(&states[track]) }

    func isWatching(track: Int) -> Bool { rule.isWatching(states[track]) }

    /// The rule's memory of the device on `track` (for tests and diagnostics).
    func state(of track: Int) -> Rule.DeviceState { states[track] }

    func confidence(track: Int, store: Int, section: Int?, evidence: SectionEvidence) -> Double? {
        rule.confidence(states[track], store: store, section: section, evidence: evidence)
    }

    mutating func admits(track: Int, evidence: SectionEvidence, at time: EventTime) -> Bool {
        rule.admits(&states[track], evidence: evidence, at: time)
    }

    func needsConsent(store: Int) -> Bool { rule.needsConsent(store: store) }

    var hearsEverySighting: Bool { rule.hearsEverySighting }

    mutating func heard(track: Int, _ sighting: SectionSighting) { rule.heard(&states[track], sighting) }
}

/// The rules `tuning.rule` names.
enum SectionRules {
    /// The configured rule, ready for the chain's devices. Adding a rule: its file and a case here.
    static func make(for chain: Chain) -> any SectionDecider {
        switch chain.tuning.rule {
        case .hysteresis: SectionRuleSlot(LeadRule(chain: chain))
        case .hmm: SectionRuleSlot(PosteriorRule(chain: chain))
        case .nearest: SectionRuleSlot(NearestRule())
        case .strongest: SectionRuleSlot(StrongestRule(chain: chain))
        case .fingerprint: SectionRuleSlot(FingerprintRule(chain: chain))
        case .position: SectionRuleSlot(PositionRule(chain: chain))
        }
    }
}
