/// The `hysteresis` rule (the default): a challenger section's lead over the current one, less
/// the switch margin, summed over event time — Page's CUSUM change detector (``SampledLead``).
///
/// The device moves when the sum reaches margin × (dwell + max(dwell, ``minimumHopSeconds``) ×
/// the sections in between) while the challenger still leads by more than the margin. At dwell 0
/// a device moves to an adjacent section as soon as the filtered lead passes the margin: the
/// per-link filters' smoothing is the evidence over time, and the sum only paces moves across the
/// store.
///
/// With a dwell, a lead of twice the margin moves the device after the dwell time, a bigger one
/// sooner (a lead counts up to three margins, so never sooner than half the dwell), a lead just
/// over the margin only if it lasts; a lead below the margin wears the sum down rather than
/// resetting it.
struct HysteresisRule: SectionRule {
    /// The lead summed so far.
    struct DeviceState: Sendable {
        /// The section whose lead is being summed; nil before any challenger.
        var section: Int?
        /// Its lead over the current section, summed.
        var lead = SampledLead()
        /// The challenger still leading by more than the margin, if any: the sweep looks again.
        var challenger: Int?
    }

    /// The least time, s, that each section between the current one and a challenger across the
    /// store adds to the move (as `dwell_s` does when it is longer), so that a device does not jump
    /// across the store even at `dwell_s` 0: it walks through them.
    static let minimumHopSeconds = 0.25

    /// `switch_margin_db`.
    let margin: Double
    /// `dwell_s`.
    let dwell: Double
    /// `stale_after_s`: the longest step a look adds.
    let stale: EventDuration
    /// Hops from each section to every section of its store (index: the other section − the
    /// store's first section), at most 255.
    let hops: [[UInt8]]
    /// Per section, its store's first section index.
    let storeStart: [Int]
    /// Every device's sum.
    var memory = DeviceMemory(DeviceState())

    init(chain: Chain) {
        margin = chain.tuning.switchMarginDB
        dwell = chain.tuning.dwellSeconds
        stale = chain.tuning.staleAfter
        hops = chain.sections.indices.map { a in
            chain.stores[chain.sections[a].store].sections.map { b in UInt8(clamping: chain.hops(from: a, to: b)) }
        }
        storeStart = chain.sections.map { chain.stores[$0.store].sections.lowerBound }
    }

    var reads: SectionEvidence.Extras { [] }

    mutating func start(_ track: Int) { memory.start(track) }

    mutating func decide(_ track: Int, _ evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        var state = memory[track]
        defer { memory[track] = state }
        return decide(&state, evidence, at: time)
    }

    /// The decision on one device's state (the rules that fall back on this one for stores
    /// without their model keep that state themselves).
    func decide(_ state: inout DeviceState, _ evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        guard let strongest = evidence.strongest else { return .stay }
        guard let current = evidence.current else { return moved(&state, to: strongest.section, at: time) }
        // A look behind the last one (the sweep, at the watermark) adds nothing to the sum.
        if let last = state.lead.lastLook, time < last { return .stay }
        let challenger = strongest.section != current ? strongest.section : nil
        // The lead counts within ±3 margins: no fresh link in the current section (or none in any
        // other) is strong evidence, not proof — and an infinite lead would make the sum NaN.
        let currentValue = evidence.inCurrent?.value ?? -.infinity
        let raw = challenger != nil ? strongest.level.value - currentValue : (evidence.elsewhere?.value ?? -.infinity) - currentValue
        let lead = min(3 * margin, max(-3 * margin, raw))
        if let challenger, challenger != state.section {
            // A new challenger starts from nothing: the sum so far was for another section.
            state.section = challenger
            state.lead.restart(with: lead, at: time)
        } else {
            // A lone reading from another section after the current one's links went stale counts
            // as three margins and moves the device after about half the dwell: the sweep keeps
            // adding while it is fresh. A new or restored track (no look yet) starts its clock now.
            state.lead.look(lead, at: time, drift: margin, longestStep: stale)
        }
        // The sweep looks again only while the sum can grow.
        guard let challenger, lead > margin else {
            state.challenger = nil
            return .stay
        }
        state.challenger = challenger
        // Across the store takes as long as walking through the sections between.
        let between = max(1, min(Int(hops[current][challenger - storeStart[current]]), 8))
        let perHop = max(dwell, Self.minimumHopSeconds)
        guard state.lead.sum.value >= margin * (dwell + perHop * Double(between - 1)) else { return .stay }
        return moved(&state, to: challenger, at: time)
    }

    /// The device goes to `section` at `time`.
    private func moved(_ state: inout DeviceState, to section: Int, at time: EventTime) -> SectionVerdict {
        restart(&state, at: time)
        return .move(to: section)
    }

    /// The device was moved at `time` (by this rule, or by the rule this one stands in for): the
    /// sum starts again from there.
    func restart(_ state: inout DeviceState, at time: EventTime) {
        state.challenger = nil
        state.section = nil
        state.lead.restart(at: time)
    }

    mutating func endVisit(_ track: Int) { memory[track].challenger = nil }

    /// A visit ends for one device's state.
    func endVisit(_ state: inout DeviceState) { state.challenger = nil }

    func isWatching(_ track: Int) -> Bool { isWatching(memory[track]) }

    /// Whether one device's state has a challenger.
    func isWatching(_ state: DeviceState) -> Bool { state.challenger != nil }
}
