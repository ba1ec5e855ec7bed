import Foundation

/// The `fingerprint` rule: the calibrated one. A forward filter (a hidden-Markov model) over the
/// store's sections, whose evidence is the store's fingerprints — per gateway and section, the
/// mean and spread of the gateway's filtered level when it hears the device there, and how often
/// it does — learnt from a walk (`beacon-aggregator calibrate`).
///
/// At each step the belief is carried forward by a walking model (a mean dwell of ``stayTime``
/// over the adjacency graph), then weighed by how well each section's fingerprints explain the
/// fresh links and the gateways that missed the device (``StoreFingerprints/logLikelihood(links:missed:into:)``),
/// ``evidencePerTick`` per half second. The device moves when a section holds ``switchOdds``
/// posterior odds over the current one (for `dwell_s`, when given). The levels are the engine's
/// per-link Kalman estimates, the same the calibration samples.
///
/// When the walk also taught what just outside the store sounds like (its outside fingerprints),
/// outside is one more state of the filter, reached from the sections with a street door (from
/// every section when none is marked) and leading back to them, with a mean stay of
/// ``returnTime``. When it holds ``switchOdds`` over every section, the device has left: the
/// engine takes it out of the store. The belief then goes on while the store's gateways hear the
/// device, and the device enters the store again only once a section holds the same odds over
/// outside (``admits(_:evidence:at:)``) — so a shopper heard through the window stays out.
///
/// A store the calibration does not cover decides as `hysteresis` does (``LeadRule``): a chain is
/// calibrated store by store, and an uncalibrated store behaves as it did.
struct FingerprintRule: SectionRule {
    /// What the rule remembers of a device: the hysteresis rule's memory for an uncalibrated
    /// store, the filter's belief for a calibrated one.
    struct DeviceState: Sendable {
        /// The hysteresis rule's memory (stores without fingerprints).
        var fallback = LeadRule.DeviceState()
        /// The belief about a calibrated store; nil before its first step. Where the store has an
        /// outside state the belief lasts across visits (the device leaves and comes back through
        /// it); otherwise it is one visit's.
        var belief: Belief?
    }

    /// The forward filter's belief about a device and one calibrated store.
    struct Belief: Sendable {
        /// The store, an index into ``Chain/stores``.
        var store: Int
        /// P(state), over the store's states in local order (its sections, then outside when it
        /// has that state); sums to 1.
        var posterior: [Double]
        /// When it was last stepped.
        var time: EventTime
        /// The state (local) holding the most belief while it is not the device's section: the
        /// sweep looks again while there is one.
        var leader: Int?
        /// Since when ``leader`` has held ``FingerprintRule/switchOdds`` over the current section
        /// (outside: over every section).
        var oddsSince: EventTime?
    }

    /// The mean time a person stays in a section before walking to a neighbour, s: the walking
    /// model's time constant. A behavioural prior (the simulator's shoppers linger a median 45 s)
    /// that leaving one real dataset out did not move.
    static let stayTime = 30.0
    /// The mean time someone just outside a store stays there before coming in again, s: the
    /// street test's prior (``Street/returnTime``), a behaviour, not a property of the radio.
    static let returnTime = Street.returnTime
    /// How much evidence the links give per ``tick``, in log-likelihood units (β): the filtered
    /// levels are taken as independent twice a second, about their correlation time. Chosen with
    /// ``switchOdds`` by leaving one real dataset out (docs/CALIBRATION.md has the figures).
    static let evidencePerTick = 1.0
    /// The time one unit of ``evidencePerTick`` stands for, s.
    static let tick = 0.5
    /// The longest step whose evidence counts in full, s: after a longer silence the links are
    /// no more informative for it.
    static let longestStep = 1.0
    /// The posterior odds a section needs over the current one to take the device (K): high
    /// enough that a body turning for a second does not move it, low enough to follow a walk.
    /// Outside needs the same over every section to take the device out of the store, and a
    /// section the same over outside to let it in again.
    static let switchOdds = 30.0
    /// No section's belief falls below this: the model is never sure enough to rule one out.
    static let floor = 1e-9
    /// After this long unheard, s, a belief is dropped and the next step weighs the evidence
    /// alone, as for a device never seen: the walking model steps once over the whole gap, which
    /// is only sound over a fraction of the stay times, and by then someone outside has on average
    /// come back in or gone (``returnTime``) — an old belief would let in a passer-by heard
    /// through the window minutes after they left.
    static let forgetAfter = returnTime

    /// Per store, its fingerprints; nil where the store is not calibrated.
    let models: [StoreFingerprints?]
    /// The rule for stores without fingerprints.
    let fallback: LeadRule
    /// How long a section must hold its odds (`dwell_s`), ms.
    let dwell: Int64
    /// Every link is weighed where some store is calibrated.
    let weighsEveryLink: Bool

    init(chain: Chain) {
        models = chain.stores.indices.map { $0 < chain.fingerprints.count ? chain.fingerprints[$0] : nil }
        fallback = LeadRule(chain: chain)
        dwell = Int64(chain.tuning.dwellSeconds * 1000)
        weighsEveryLink = models.contains { $0 != nil }
    }

    var initialState: DeviceState { DeviceState() }

    func decide(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        guard let model = models[evidence.store] else { return fallback.decide(&state.fallback, evidence: evidence, at: time) }
        if state.belief?.store != evidence.store { state.belief = nil }
        guard let top = step(&state.belief, model: model, evidence: evidence, at: time), var belief = state.belief else { return .stay }
        let p = belief.posterior
        let best = Self.argmax(p, below: model.sectionCount)
        guard let current = evidence.current, let c = model.local(current) else {
            return .move(to: model.firstSection + best, confidence: p[best])
        }
        // Outside leads when it holds the most belief; it must then beat every section.
        let leader = top != c ? top : nil
        let rival = top == model.outside ? best : c
        if leader != belief.leader {
            belief.leader = leader
            belief.oddsSince = nil
        }
        defer { state.belief = belief }
        guard let leader, p[leader] >= Self.switchOdds * p[rival] else {
            belief.oddsSince = nil
            return SectionVerdict(section: nil, confidence: p[c])
        }
        let since = belief.oddsSince ?? time
        belief.oddsSince = since
        guard time - since >= dwell else { return SectionVerdict(section: nil, confidence: p[c]) }
        return leader == model.outside ? .leave(confidence: p[leader]) : .move(to: model.firstSection + leader, confidence: p[leader])
    }

    /// A visit of a calibrated store starts from no belief — the first step weighs the evidence
    /// alone, and the device goes where it points — unless the store has an outside state: then
    /// the belief that let the device in goes on, and it goes to the section it favours.
    func enter(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        guard let model = models[evidence.store] else { return fallback.enter(&state.fallback, evidence: evidence, at: time) }
        if model.outside == nil { state.belief = nil }
        var first = evidence
        first.current = nil
        return decide(&state, evidence: first, at: time)
    }

    /// A device outside enters a store with an outside state only once a section holds
    /// ``switchOdds`` over outside: the store's gateways hear someone who left, or who walks
    /// past, and entering on sightings alone would take them in again at once.
    func admits(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> Bool {
        guard let model = models[evidence.store], let outside = model.outside else { return true }
        if state.belief?.store != evidence.store { state.belief = nil }
        guard step(&state.belief, model: model, evidence: evidence, at: time) != nil, let p = state.belief?.posterior else { return false }
        return p[Self.argmax(p, below: model.sectionCount)] >= Self.switchOdds * p[outside]
    }

    func needsConsent(store: Int) -> Bool { models[store]?.outside != nil }

    func moved(_ state: inout DeviceState, at time: EventTime) {
        fallback.moved(&state.fallback, at: time)
        state.belief?.leader = nil
        state.belief?.oddsSince = nil
    }

    /// Entering or leaving a store ends the visit, and its belief — but for a store with an
    /// outside state, where it goes on: leaving and coming back are states of it.
    func stopWatching(_ state: inout DeviceState) {
        fallback.stopWatching(&state.fallback)
        guard let store = state.belief?.store, models[store]?.outside != nil else {
            state.belief = nil
            return
        }
        state.belief?.leader = nil
        state.belief?.oddsSince = nil
    }

    func isWatching(_ state: DeviceState) -> Bool {
        fallback.isWatching(state.fallback) || state.belief?.leader != nil
    }

    /// In a calibrated store, the filter's posterior of `section`.
    func confidence(_ state: DeviceState, store: Int, section: Int?, evidence: SectionEvidence) -> Double? {
        guard let model = models[store] else { return evidence.leadConfidence(of: section) }
        guard let section, let s = model.local(section), let belief = state.belief, belief.store == store,
              s < belief.posterior.count else { return nil }
        return belief.posterior[s]
    }

    /// One step of the forward filter at `time`: carried forward over the time since the last
    /// step, weighed by the evidence, normalised with every section kept above ``floor``.
    /// Returns the state (local) with the most belief; nil with no belief yet and no fresh link.
    /// A step at or before the last one changes nothing (links heard in the same millisecond, the
    /// sweep at the watermark).
    func step(_ belief: inout Belief?, model: StoreFingerprints, evidence: SectionEvidence, at time: EventTime) -> Int? {
        var logLikelihood = [Double](repeating: 0, count: model.stateCount)
        if let last = belief?.time, Double(time - last) / 1000 > Self.forgetAfter { belief = nil }
        guard var next = belief else {
            guard !evidence.links.isEmpty else { return nil }
            model.logLikelihood(links: evidence.links, missed: evidence.missed, into: &logLikelihood)
            let best = logLikelihood.max() ?? 0
            var posterior = logLikelihood.map { exp($0 - best) }
            Self.normalise(&posterior)
            belief = Belief(store: evidence.store, posterior: posterior, time: time)
            return Self.argmax(posterior)
        }
        let dt = Double(time - next.time) / 1000
        guard dt > 0 else { return Self.argmax(next.posterior) }
        // Taken out, so that the posterior is changed in place rather than copied.
        belief = nil
        model.predict(&next.posterior, over: dt, stay: Self.stayTime)
        if !evidence.links.isEmpty {
            model.logLikelihood(links: evidence.links, missed: evidence.missed, into: &logLikelihood)
            let weight = Self.evidencePerTick * min(dt, Self.longestStep) / Self.tick
            let best = logLikelihood.max() ?? 0
            for s in 0..<model.stateCount { next.posterior[s] *= exp(weight * (logLikelihood[s] - best)) }
        }
        Self.normalise(&next.posterior)
        next.time = time
        belief = next
        return Self.argmax(next.posterior)
    }

    /// Scales `p` to sum to 1 and lifts every entry to at least ``floor`` (then scales again); a
    /// vector that cannot be scaled starts over, uniform.
    static func normalise(_ p: inout [Double]) {
        var total = p.reduce(0, +)
        guard total > 0 && total.isFinite else {
            for s in p.indices { p[s] = 1 / Double(p.count) }
            return
        }
        for s in p.indices { p[s] = max(p[s] / total, floor) }
        total = p.reduce(0, +)
        for s in p.indices { p[s] /= total }
    }

    /// The index of the largest entry (the first of equals).
    static func argmax(_ p: [Double]) -> Int { argmax(p, below: p.count) }

    /// The index of the largest of the first `count` entries (the first of equals): the sections,
    /// without the outside state after them.
    static func argmax(_ p: [Double], below count: Int) -> Int {
        var best = 0
        for i in 1..<max(1, count) where p[i] > p[best] { best = i }
        return best
    }
}
