import Foundation

/// The `position` rule: where in the store the radio picture fits best, weighed over time. For
/// stores with geometry — a polygon for every section, a position for every gateway.
///
/// At each decision, every cell of the store's grid (``PositionModel``) is scored by how well the
/// path-loss model from the gateways' positions explains the fresh links, with the device's own
/// power offset profiled out; a section's evidence is its best cell's log-likelihood (the
/// section's best-fitting position). Each other section sums its evidence over the current one's,
/// within ±``leadClip`` per ``evidenceTime`` (a ``LeadSum``: Page's CUSUM); the device moves to
/// the section whose sum first reaches ln(``switchOdds``) — times 1 + ``perHop`` for each section
/// in between — and every sum starts again. The first section of a visit is the one with the most
/// evidence. One fresh link fits every cell equally, so it moves nobody.
///
/// On the real recordings it is the best uncalibrated rule on the Kolakowski flat and the worst on
/// SAL-RB, whose hot end-wall sniffer the geometry cannot know about (docs/MEASUREMENTS.md): check
/// a store once on a short walk before relying on it.
///
/// A store without the geometry decides as `hysteresis` does (``HysteresisRule``), as the `fingerprint`
/// rule does for a store without fingerprints: geometry is drawn store by store.
struct PositionRule: SectionRule {
    /// What the rule remembers of a device: the hysteresis rule's memory for a store without
    /// geometry, the sums of this visit for one with.
    struct DeviceState: Sendable {
        /// The hysteresis rule's memory (stores without geometry).
        var fallback = HysteresisRule.DeviceState()
        /// This visit's sums; nil before its first decision.
        var visit: Visit?
    }

    /// The evidence gathered during one visit of a store with geometry.
    struct Visit: Sendable {
        /// Per local section, its summed evidence over the current section, in log-odds (0 for
        /// the current section itself).
        var sums: [LeadSum]
        /// The last decision's time: the evidence counts for the time since.
        var lastLook: EventTime

        /// A visit with nothing summed yet, as of `time`.
        init(sections: Int, at time: EventTime) {
            sums = Array(repeating: LeadSum(), count: sections)
            lastLook = time
        }

        /// A move was made at `time`: every sum starts again.
        mutating func restart(at time: EventTime) {
            for s in sums.indices { sums[s].reset() }
            lastLook = max(lastLook, time)
        }
    }

    /// The model's error in an expected level, dB: walls, shelves and antenna patterns the
    /// log-distance model cannot know: on the Kolakowski flat the place-bound part of a link's
    /// error is 4.3 dB (docs/MEASUREMENTS.md, The switch margin).
    static let modelSigma = 5.0
    /// The time over which the evidence counts once, s: the levels are the links' Kalman
    /// estimates, correlated over about a second, so evidence is weighed by time, not by how often
    /// it is looked at.
    static let evidenceTime = 1.0
    /// The most one ``evidenceTime`` of lead adds to (or takes from) a sum: one decisive moment
    /// (a body turning, a gateway's burst) must last ¾ s to cross ln(10) alone.
    static let leadClip = 3.0
    /// Each section crossed beyond the first adds this share of ln(`position_switch_odds`): a
    /// device is not moved across the store on the evidence that takes it next door (like the
    /// hysteresis rule's ``HysteresisRule/minimumHopSeconds``).
    static let perHop = 0.5

    /// Per store, its grid; nil where the store lacks the geometry.
    let models: [PositionModel?]
    /// The rule for stores without geometry.
    let fallback: HysteresisRule
    /// The longest time one decision's evidence counts for (`stale_after_s`): after a longer
    /// silence the links are no more informative for it.
    let longestStep: EventDuration
    /// ln(`position_switch_odds`): the log-odds the evidence must give a section over the current
    /// one. Chosen by leaving one real dataset out over 3, 10, 30 and 100: lower odds follow faster
    /// with more section enters, higher ones enter less.
    let logSwitchOdds: Double
    /// Every device's memory.
    var memory = DeviceMemory(DeviceState())

    init(chain: Chain) {
        models = chain.stores.indices.map { PositionModel(chain: chain, store: $0) }
        fallback = HysteresisRule(chain: chain)
        longestStep = chain.tuning.staleAfter
        logSwitchOdds = log(chain.tuning.positionSwitchOdds)
    }

    /// Every link is weighed where some store has geometry.
    var reads: SectionEvidence.Extras { models.contains { $0 != nil } ? .everyLink : [] }

    mutating func start(_ track: Int) { memory.start(track) }

    mutating func decide(_ track: Int, _ evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        var state = memory.take(track)
        defer { memory[track] = state }
        guard let model = models[evidence.store] else {
            let verdict = fallback.decide(&state.fallback, evidence, at: time)
            if verdict.section != nil { state.visit?.restart(at: time) }
            return verdict
        }
        guard let current = evidence.current, let c = model.local(current) else { return first(&state, model: model, evidence: evidence, at: time) }
        guard var visit = state.visit, visit.sums.count == model.sectionCount else {
            // Placed without this rule's evidence (restored from a previous run): its sums start now.
            state.visit = Visit(sections: model.sectionCount, at: time)
            return .stay
        }
        // A look behind the last one (the sweep, at the watermark) adds nothing.
        guard time > visit.lastLook else { return .stay }
        let step = min(time - visit.lastLook, longestStep).seconds / Self.evidenceTime
        // Taken out, so that the sums are changed in place rather than copied.
        state.visit = nil
        visit.lastLook = time
        defer { state.visit = visit }
        guard let move = sum(&visit, model: model, current: c, evidence: evidence, over: step) else { return .stay }
        visit.restart(at: time)
        fallback.restart(&state.fallback, at: time)
        return .move(to: model.firstSection + move)
    }

    /// Adds each section's lead over local section `c`, held for `step`, to its sum; returns the
    /// section whose sum is furthest past its threshold, if one is.
    private func sum(_ visit: inout Visit, model: PositionModel, current c: Int, evidence: SectionEvidence, over step: Double) -> Int? {
        withUnsafeTemporaryAllocation(of: Double.self, capacity: model.sectionCount) { e in
            let heard = evidence.links.withUnsafeBufferPointer { model.sectionEvidence($0, modelSigma: Self.modelSigma, into: e) }
            guard heard else { return nil }
            var move: (section: Int, excess: Double)?
            for s in 0..<model.sectionCount where s != c {
                let lead = min(Self.leadClip, max(-Self.leadClip, e[s] - e[c]))
                visit.sums[s].add(lead, over: step, drift: 0)
                let excess = visit.sums[s].value - threshold(model, from: c, to: s)
                if excess >= 0, move.map({ excess > $0.excess }) ?? true { move = (s, excess) }
            }
            return move?.section
        }
    }

    /// Entering or leaving a store ends the visit, and its sums.
    mutating func endVisit(_ track: Int) {
        fallback.endVisit(&memory[track].fallback)
        memory[track].visit = nil
    }

    /// While a section has gathered evidence, the sweep looks again: a device heard seldom (or
    /// gone quiet) still moves once its links have said enough.
    func isWatching(_ track: Int) -> Bool {
        fallback.isWatching(memory[track].fallback) || memory[track].visit?.sums.contains { $0.value > 0 } == true
    }

    /// In a store with geometry, the share of `section` in the sections' evidence, each section
    /// taken as likely as another (a softmax of the best cells' log-likelihoods); with one fresh
    /// link, which says nothing of position, the lead of the strongest.
    func confidence(_ track: Int, in section: Int?, _ evidence: SectionEvidence) -> Double? {
        guard let model = models[evidence.store] else { return evidence.leadConfidence(of: section) }
        guard let section, let s = model.local(section) else { return nil }
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: model.sectionCount) { e in
            let heard = evidence.links.withUnsafeBufferPointer { model.sectionEvidence($0, modelSigma: Self.modelSigma, into: e) }
            guard heard else { return evidence.leadConfidence(of: section) }
            let best = e.max()!
            var total = 0.0
            for k in 0..<model.sectionCount { total += exp(e[k] - best) }
            return min(0.999, max(0.001, exp(e[s] - best) / total))
        }
    }

    /// Starts a visit at `time` in the section with the most evidence (local order's first of
    /// equals), or the strongest link's when there is none.
    private func first(_ state: inout DeviceState, model: PositionModel, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        state.visit = Visit(sections: model.sectionCount, at: time)
        let verdict = withUnsafeTemporaryAllocation(of: Double.self, capacity: model.sectionCount) { e -> SectionVerdict in
            let heard = evidence.links.withUnsafeBufferPointer { model.sectionEvidence($0, modelSigma: Self.modelSigma, into: e) }
            guard heard else { return evidence.strongest.map { .move(to: $0.section) } ?? .stay }
            var top = 0
            for s in 1..<max(1, model.sectionCount) where e[s] > e[top] { top = s }
            return .move(to: model.firstSection + top)
        }
        if verdict.section != nil { fallback.restart(&state.fallback, at: time) }
        return verdict
    }

    /// The summed log-odds a move from local section `a` to `b` takes: ln(`position_switch_odds`),
    /// and ``perHop`` of it again for each section in between.
    func threshold(_ model: PositionModel, from a: Int, to b: Int) -> Double {
        let hops = Double(max(1, model.hops[a * model.sectionCount + b]))
        return logSwitchOdds * (1 + Self.perHop * (hops - 1))
    }
}
