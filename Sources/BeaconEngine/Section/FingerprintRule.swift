import Foundation

/// The `fingerprint` rule: the calibrated one. A forward filter (``ForwardFilter``) over the
/// store's sections, whose evidence is the store's fingerprints — per gateway and section, the
/// mean and spread of the gateway's filtered level when it hears the device there, and how often
/// it does — learnt from a walk (`beacon-aggregator calibrate`).
///
/// At each step the belief is carried forward by the walking model (``WalkingModel``, a mean
/// stay of `section_stay_s` over the adjacency graph), then weighed by how well each section's
/// fingerprints explain the fresh links and the gateways that missed the device
/// (``StoreFingerprints/logLikelihood(links:missed:prior:into:offsets:precisions:)``), counted
/// ``evidencePerSecond`` while the device walks and less while it stands (``Movement``, from how
/// far its levels move). A phone is not the tag that walked: its own level against the tag's
/// (``DeviceOffset``), first what its adverts' measured power says against the tag's and what the
/// store's phones have shown beyond their adverts (``OffsetCentre``), is learnt from its links as
/// it goes and profiled out of each step.
/// The device moves when a section holds `fingerprint_switch_odds` posterior odds over the current
/// one (for `dwell_s`, when given). The levels are the engine's per-link Kalman estimates, the same
/// the calibration samples.
///
/// When the walk also taught what just outside the store sounds like (its outside fingerprints),
/// outside is one more state of the filter, reached from the sections with a street door (from
/// every section when none is marked) and leading back to them, with a mean stay of
/// `outside_stay_s`. When it holds the odds over every section, the device has left: the engine
/// takes it out of the store. The belief then goes on while the store's gateways hear the device,
/// and the device it took out enters again only once a section is likelier than outside (asked
/// with ``SectionEvidence/Standing/outside``: ``EntryConsent``). A device arriving is let in as
/// the default lets it in — the entry itself then says it is inside — unless the store says
/// `passers_by`: then every entry needs a section to hold the switch odds over outside, so that
/// a shopper heard through the window stays out (``entryOdds(_:store:)``).
///
/// A store the calibration does not cover decides as `hysteresis` does (``HysteresisRule``): a
/// chain is calibrated store by store, and an uncalibrated store behaves as it did.
struct FingerprintRule: EntryConsent {
    /// What the rule remembers of a device: the hysteresis rule's memory for an uncalibrated
    /// store, the filter's belief for a calibrated one.
    struct DeviceState: Sendable {
        /// The hysteresis rule's memory (stores without fingerprints).
        var fallback = HysteresisRule.DeviceState()
        /// The belief about a calibrated store; nil before its first step. Where the store has an
        /// outside state the belief lasts across visits (the device leaves and comes back through
        /// it); otherwise it is one visit's.
        var belief: Belief?
        /// The device's level against the walking tag's in the calibrated store it was last heard
        /// in, as its own links there have shown it: it outlasts the belief (a device that left
        /// comes back as loud); and whether it has taught the store's ``OffsetCentre`` yet (once).
        var offset: (store: Int, offset: DeviceOffset, taught: Bool)?
    }

    /// The forward filter's belief about a device and one calibrated store.
    struct Belief: Sendable {
        /// The store, an index into ``Chain/stores``.
        var store: Int
        /// Over the store's states in local order (its sections, then outside when it has that state).
        var filter: ForwardFilter
        /// The state (local) holding the most belief while it is not the device's section: the
        /// sweep looks again while there is one.
        var leader: Int?
        /// Since when ``leader`` has held the switch odds over the current section (outside: over
        /// every section).
        var oddsSince: EventTime?
        /// Whether the device walks or stands, where the calibration says how fast levels change
        /// in the store.
        var movement = Movement()
        /// Whether the rule took the device out of the store (its last ``SectionVerdict/leave``):
        /// coming back then needs the rule's consent. It lasts as long as the belief: a device
        /// weighed in another store since, or unheard for `outside_stay_s`, comes back as one arriving.
        var tookOut = false
    }

    /// How much evidence the links give per second of a walking device, in log-likelihood units:
    /// the filtered levels are taken as independent once a second — the per-link filter's time
    /// constant at a few reports a second, and the 1.2 m over which the place-bound part of a level
    /// changes, at a walking pace. A standing device's errors stay for seconds, so where the
    /// calibration says how fast a walking device's levels change, a second of a standing one
    /// counts ``Movement/standingShare`` of this (docs/ENGINE.md, "Walking or standing").
    static let evidencePerSecond = 1.0
    /// What the rule publishes as its `confidence` for a belief: the filter's odds overstate how
    /// often it is right (its evidence is counted as surer than it is: a phone's own offsets
    /// towards each gateway and section-scale levels do not average out over seconds), so they
    /// are mapped to how often the calibrated rule's section enters were right at each, fitted on
    /// the shared real recordings held out and the simulator's shoppers together, each counting
    /// once (docs/ENGINE.md, "How sure it is"). Decisions use the belief itself.
    static let published = ConfidenceMap(slope: 0.25, intercept: 0.01)
    /// The longest step whose evidence counts in full, s: after a longer silence the links are
    /// no more informative for it.
    static let longestStep = 1.0

    /// Per store, its fingerprints; nil where the store is not calibrated.
    let models: [StoreFingerprints?]
    /// Per store, how a person walks between its states (nil where it is not calibrated).
    let walking: [WalkingModel?]
    /// The rule for stores without fingerprints.
    let fallback: HysteresisRule
    /// How long a section must hold its odds (`dwell_s`).
    let dwell: EventDuration
    /// `fingerprint_switch_odds`: high enough that a body turning for a second does not move the
    /// device, low enough to follow a walk. Outside needs the same over every section to take the
    /// device out of the store, and where the store says `passers_by` a section the same over
    /// outside to let it in.
    let switchOdds: Double
    /// After this long unheard (`outside_stay_s`), a belief is dropped and the next step weighs
    /// the evidence alone, as for a device never seen: the walking model steps once over the whole
    /// gap, which is only sound over a fraction of the stay times, and by then someone outside has
    /// on average come back in or gone: the device comes back as one arriving.
    let forgetAfter: Double
    /// `device_spread_db`: how much devices differ from the walking tag (σ, dB) before their own
    /// links have shown it; 0: they are heard as the tag is, the fingerprints' levels taken as they are.
    let deviceSpread: Double
    /// Per store, whether its config says `passers_by`: then every entry needs the switch odds
    /// over outside, not only a return after the rule took the device out.
    let passersBy: [Bool]
    /// Every device's memory.
    var memory = DeviceMemory(DeviceState())
    /// Per store, where a new phone's offset starts beyond what its adverts say.
    var centres: [OffsetCentre]
    init(chain: Chain) {
        passersBy = chain.stores.map(\.passersBy)
        let models = chain.stores.indices.map { $0 < chain.fingerprints.count ? chain.fingerprints[$0] : nil }
        self.models = models
        walking = chain.stores.indices.map { store in
            models[store].map {
                WalkingModel(chain: chain, sections: chain.stores[store].sections, outside: $0.outside != nil,
                             stayTime: chain.tuning.sectionStaySeconds, returnTime: chain.tuning.outsideStaySeconds)
            }
        }
        fallback = HysteresisRule(chain: chain)
        dwell = chain.tuning.dwell
        switchOdds = chain.tuning.fingerprintSwitchOdds
        forgetAfter = chain.tuning.outsideStaySeconds
        deviceSpread = chain.tuning.deviceSpreadDB
        centres = models.map { OffsetCentre(measured: $0?.phones.phonesOffset) }
    }

    /// Every link is weighed where some store is calibrated.
    var reads: SectionEvidence.Extras { models.contains { $0 != nil } ? .everyLink : [] }

    func judgesEntry(to store: Int) -> Bool { models[store]?.outside != nil }

    mutating func start(_ track: Int) { memory.start(track) }

    mutating func decide(_ track: Int, _ evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        var state = memory.take(track)
        defer { memory[track] = state }
        guard let model = models[evidence.store], let walking = walking[evidence.store] else {
            let verdict = fallback.decide(&state.fallback, evidence, at: time)
            if verdict.section != nil { settle(&state, movedAt: time) }
            return verdict
        }
        if evidence.standing == .entering && model.outside == nil { state.belief = nil }
        if state.belief?.store != evidence.store { state.belief = nil }
        let kept = state.offset.flatMap { $0.store == evidence.store ? $0 : nil }
        var offset = kept?.offset ?? expectedOffset(evidence, model: model)
        let stepped = step(&state.belief, offset: &offset, model: model, walking: walking, evidence: evidence, at: time)
        if evidence.standing == .entering || evidence.standing == .unplaced, let outside = model.outside {
            // The engine let the device in: it is inside, whatever the picture of outside said.
            // (Placed later, `.unplaced`, when no link was fresh as it entered.)
            state.belief?.filter.exclude(outside)
            state.belief?.tookOut = false
        }
        // A device not heard yet in the store has not said how loud its adverts claim it is.
        if kept != nil || !evidence.links.isEmpty { state.offset = (evidence.store, offset, kept?.taught ?? false) }
        if kept != nil { teachCentre(&state, evidence, model: model) }
        guard stepped != nil, let belief = state.belief else { return .stay }
        let p = belief.filter.belief
        let best = belief.filter.mostLikely(below: model.sectionCount)
        switch evidence.standing {
        case .outside:
            guard let outside = model.outside, let odds = entryOdds(belief, store: evidence.store) else {
                return .move(to: model.firstSection + best)
            }
            return p[best] >= odds * p[outside] ? .move(to: model.firstSection + best) : .stay
        case .entering, .unplaced:
            settle(&state, movedAt: time)
            return .move(to: model.firstSection + best, confidence: Self.published(p[best]))
        case .section(let current):
            guard let c = model.local(current) else {
                settle(&state, movedAt: time)
                return .move(to: model.firstSection + best, confidence: Self.published(p[best]))
            }
            return weigh(&state, current: c, model: model, at: time)
        }
    }

    /// The device is in local section `c`: whether the state with the most belief has held the
    /// odds over it (outside: over every section) for the dwell.
    private func weigh(_ state: inout DeviceState, current c: Int, model: StoreFingerprints, at time: EventTime) -> SectionVerdict {
        guard var belief = state.belief else { return .stay }
        defer { state.belief = belief }
        let p = belief.filter.belief
        let top = belief.filter.mostLikely
        // Outside leads when it holds the most belief; it must then beat every section.
        let leader = top != c ? top : nil
        let rival = top == model.outside ? belief.filter.mostLikely(below: model.sectionCount) : c
        if leader != belief.leader {
            belief.leader = leader
            belief.oddsSince = nil
        }
        guard let leader, p[leader] >= switchOdds * p[rival] else {
            belief.oddsSince = nil
            return .stay(confidence: Self.published(p[c]))
        }
        let since = belief.oddsSince ?? time
        belief.oddsSince = since
        guard time - since >= dwell else { return .stay(confidence: Self.published(p[c])) }
        if leader == model.outside {
            belief.tookOut = true
            return .leave(confidence: Self.published(p[leader]))
        }
        belief.leader = nil
        belief.oddsSince = nil
        fallback.restart(&state.fallback, at: time)
        return .move(to: model.firstSection + leader, confidence: Self.published(p[leader]))
    }

    /// The odds a section must hold over outside to let a device in; nil: it comes in as with
    /// the default, on the entry evidence alone. A store that says `passers_by` asks the switch
    /// odds of every entry: someone at the window is heard as someone just inside. Elsewhere only
    /// a device the rule itself took out is asked, and only that a section be the likelier
    /// (even odds, as the street test lets a device in): it would otherwise come straight back
    /// on its next sightings and be taken out again, while a shopper who stood in the doorway
    /// is not kept out for as long as the switch odds take to build.
    private func entryOdds(_ belief: Belief, store: Int) -> Double? {
        if passersBy[store] { return switchOdds }
        return belief.tookOut ? 1 : nil
    }

    /// What is known of a device's level against the tag's before its links in the store are
    /// weighed: as loud as its adverts' measured power says against the tag's, where the
    /// calibration says what the tag's was (a device's links carry the same claim; the chain's
    /// `default_measured_power` where its adverts carry none), and as much louder again as the
    /// store's phones have been (``OffsetCentre``).
    private func expectedOffset(_ evidence: SectionEvidence, model: StoreFingerprints) -> DeviceOffset {
        DeviceOffset(spread: deviceSpread, expected: advertised(evidence, model: model) + (centres[evidence.store].centre ?? 0))
    }

    /// How much louder than the tag a device's adverts say it is: their measured power less the
    /// tag's, where the calibration says what the tag's was; else 0.
    private func advertised(_ evidence: SectionEvidence, model: StoreFingerprints) -> Double {
        guard let tag = model.phones.tagMeasuredPower, let power = evidence.links.first?.power else { return 0 }
        return power - tag
    }

    /// Once a device's offset in the store is known (to ``OffsetCentre/knownSD``), it teaches the
    /// store's centre how much louder than its adverts said it was — once for each offset learnt
    /// there. Not where its adverts claim more than ``DeviceOffset/trustedSpreads`` from the tag's:
    /// such a claim says nothing of the store's phones.
    private mutating func teachCentre(_ state: inout DeviceState, _ evidence: SectionEvidence, model: StoreFingerprints) {
        guard deviceSpread > 0, let known = state.offset, !known.taught, !evidence.links.isEmpty,
              known.offset.variance <= OffsetCentre.knownSD * OffsetCentre.knownSD else { return }
        let claimed = advertised(evidence, model: model)
        guard abs(claimed) <= DeviceOffset.trustedSpreads * deviceSpread else { return }
        state.offset?.taught = true
        centres[evidence.store].learn(surplus: known.offset.mean - claimed)
    }

    /// A move was made at `time`: the fallback's sum and the belief's leader start again.
    private func settle(_ state: inout DeviceState, movedAt time: EventTime) {
        fallback.restart(&state.fallback, at: time)
        state.belief?.leader = nil
        state.belief?.oddsSince = nil
    }

    /// Entering or leaving a store ends the visit, and its belief — but for a store with an
    /// outside state, where it goes on: leaving and coming back are states of it.
    mutating func endVisit(_ track: Int) {
        fallback.endVisit(&memory[track].fallback)
        guard let store = memory[track].belief?.store, models[store]?.outside != nil else {
            memory[track].belief = nil
            return
        }
        memory[track].belief?.leader = nil
        memory[track].belief?.oddsSince = nil
    }

    func isWatching(_ track: Int) -> Bool {
        fallback.isWatching(memory[track].fallback) || memory[track].belief?.leader != nil
    }

    /// In a calibrated store, the filter's belief in `section`.
    func confidence(_ track: Int, in section: Int?, _ evidence: SectionEvidence) -> Double? {
        guard let model = models[evidence.store] else { return evidence.leadConfidence(of: section) }
        guard let section, let s = model.local(section), let belief = memory[track].belief, belief.store == evidence.store,
              s < belief.filter.belief.count else { return nil }
        return Self.published(belief.filter.belief[s])
    }
}
