import Foundation

/// The `hmm` rule: a forward filter (``ForwardFilter``) over the store's sections. Transitions
/// follow the walking model (``WalkingModel``, a mean stay of `section_stay_s`) over the adjacency
/// graph; emissions come from the path-loss model of ``SectionModel`` with the device's unknown
/// power offset profiled out, and every gateway that heard someone lately but not this device
/// counted as censored (below its floor). The device moves when a challenger has held
/// `hmm_switch_odds` over the current section for `dwell_s`.
struct HMMRule: SectionRule {
    /// The filter's belief, and the challenger it is timing.
    struct DeviceState: Sendable {
        /// The belief over the current store's sections; nil before the first step of a visit.
        var filter: ForwardFilter?
        /// The section holding the odds, and since when.
        var challenger: (section: Int, since: EventTime)?
    }

    /// Evidence from filtered links is correlated in time: it counts in full once per this many
    /// seconds (a tempered likelihood), however often it is evaluated.
    static let evidenceTime = 1.0

    /// Per store: the expected radio picture of its sections.
    let models: [SectionModel]
    /// Per store: how a person walks between its sections.
    let walking: [WalkingModel]
    /// How long a challenger must hold its odds.
    let dwell: EventDuration
    /// `hmm_switch_odds`.
    let switchOdds: Double
    /// Every device's belief.
    var memory = DeviceMemory(DeviceState())

    init(chain: Chain) {
        models = chain.stores.indices.map { SectionModel(chain: chain, store: $0) }
        walking = chain.stores.map {
            WalkingModel(chain: chain, sections: $0.sections, outside: false, stayTime: chain.tuning.sectionStaySeconds,
                         returnTime: chain.tuning.outsideStaySeconds)
        }
        dwell = chain.tuning.dwell
        switchOdds = chain.tuning.hmmSwitchOdds
    }

    var reads: SectionEvidence.Extras { .everyLink }

    mutating func start(_ track: Int) { memory.start(track) }

    mutating func decide(_ track: Int, _ evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        var state = memory.take(track)
        defer { memory[track] = state }
        // A visit starts from no belief: the first step weighs the evidence alone.
        if evidence.standing == .entering { state.filter = nil }
        let model = models[evidence.store]
        guard let top = step(&state.filter, model: model, walking: walking[evidence.store], evidence: evidence, at: time),
              let p = state.filter?.belief else { return .stay }
        guard let current = evidence.current, let c = model.local[current] else {
            state.challenger = nil
            return .move(to: model.sections[top], confidence: p[top])
        }
        let challenger = model.sections[top]
        guard challenger != current, p[top] >= switchOdds * p[c] else {
            state.challenger = nil
            return .stay(confidence: p[c])
        }
        if state.challenger?.section != challenger { state.challenger = (challenger, time) }
        if let since = state.challenger?.since, time - since >= dwell {
            state.challenger = nil
            return .move(to: challenger, confidence: p[top])
        }
        return .stay(confidence: p[c])
    }

    mutating func endVisit(_ track: Int) { memory[track].challenger = nil }

    func isWatching(_ track: Int) -> Bool { memory[track].challenger != nil }

    /// The forward filter's belief in `section` is its confidence.
    func confidence(_ track: Int, in section: Int?, _ evidence: SectionEvidence) -> Double? {
        guard let section, let c = models[evidence.store].local[section], let belief = memory[track].filter?.belief,
              c < belief.count else { return nil }
        return belief[c]
    }

    /// One step of the forward filter: predict with the walking model over the time since the
    /// last step, weigh by the links' evidence, normalise. Returns the most likely section (local
    /// index), or nil when the device has no fresh link in its store and no belief yet.
    private func step(_ filter: inout ForwardFilter?, model: SectionModel, walking: WalkingModel, evidence: SectionEvidence,
                      at time: EventTime) -> Int? {
        let count = model.sections.count
        let fresh = evidence.links
        var first = false
        if filter?.belief.count != count {
            guard !fresh.isEmpty else { return nil }
            filter = ForwardFilter(uniform: count, at: time)
            first = true
        }
        guard var next = filter else { return nil }
        let dt = max(0, (time - next.time).seconds)
        guard dt > 0 || first else { return next.mostLikely }
        // Taken out, so that the belief is changed in place rather than copied.
        filter = nil
        next.predict(to: time, by: walking)
        if fresh.isEmpty {
            next.settle()
        } else {
            let weight = first ? 1 : min(1, dt / Self.evidenceTime)
            let power = fresh.reduce(0) { $0 + $1.power } / Double(fresh.count)
            let logLikelihood = (0..<count).map {
                SectionModel.logLikelihood(fresh, missed: evidence.missed, power: power, model: model, section: $0)
            }
            next.weigh(logLikelihood, weight: weight)
        }
        filter = next
        return next.mostLikely
    }
}
