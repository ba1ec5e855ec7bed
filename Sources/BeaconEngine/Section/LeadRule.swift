/// The `hysteresis` rule (the default): a challenger section's lead over the current one, less
/// the switch margin, summed over event time — Page's CUSUM change detector.
///
/// The sum is floored at zero, and the device moves when it reaches margin × (dwell +
/// max(dwell, ``minimumHopSeconds``) × the sections in between) while the challenger still leads
/// by more than the margin. At dwell 0 a device moves to an adjacent section as soon as the
/// filtered lead passes the margin: the per-link filters' smoothing is the evidence over time,
/// and the sum only paces moves across the store.
///
/// With a dwell, a lead of twice the margin moves the device after the dwell time, a bigger one
/// sooner (a lead counts up to three margins, so never sooner than half the dwell), a lead just
/// over the margin only if it lasts; a lead below the margin wears the sum down rather than
/// resetting it.
struct LeadRule: SectionRule {
    /// The lead summed so far, and how the last look saw it.
    struct DeviceState: Sendable {
        /// The section whose lead is being summed; nil before any challenger.
        var section: Int?
        /// The running sum of the lead over the margin, dB·s.
        var sum = 0.0
        /// The last look's lead, dB.
        var lastLead = 0.0
        /// The last look's event time; nil before the first look.
        var lastLook: EventTime?
        /// The challenger still leading by more than the margin, if any: the sweep looks again.
        var challenger: Int?
    }

    /// The least time, s, that each section between the current one and a challenger across the
    /// store adds to the move (as `dwell_s` does when it is longer), so that a device does not jump
    /// across the store even at `dwell_s` 0: it walks through them.
    static let minimumHopSeconds = 0.25

    let margin: Double
    let dwell: Double
    let stale: Int64
    /// Hops from each section to every section of its store (index: the other section − the
    /// store's first section), at most 255.
    let hops: [[UInt8]]
    /// Per section, its store's first section index.
    let storeStart: [Int]

    init(chain: Chain) {
        margin = chain.tuning.switchMarginDB
        dwell = chain.tuning.dwellSeconds
        stale = Int64(chain.tuning.staleAfterSeconds * 1000)
        hops = chain.sections.indices.map { a in
            chain.stores[chain.sections[a].store].sections.map { b in UInt8(clamping: chain.hops(from: a, to: b)) }
        }
        storeStart = chain.sections.map { chain.stores[$0.store].sections.lowerBound }
    }

    var initialState: DeviceState { DeviceState() }
    var weighsEveryLink: Bool { false }

    func decide(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        guard let strongest = evidence.strongest else { return .stay }
        guard let current = evidence.current else { return .move(to: strongest.section) }
        // A look behind the last one (the sweep, at the watermark) adds nothing to the sum.
        if let last = state.lastLook, time < last { return .stay }
        let challenger = strongest.section != current ? strongest.section : nil
        // The lead counts within ±3 margins: no fresh link in the current section (or none in any
        // other) is strong evidence, not proof — and an infinite lead would make the sum NaN.
        let currentValue = evidence.inCurrent?.value ?? -.infinity
        let raw = challenger != nil ? strongest.level.value - currentValue : (evidence.elsewhere?.value ?? -.infinity) - currentValue
        let lead = min(3 * margin, max(-3 * margin, raw))
        var sum = state.sum
        if let challenger, challenger != state.section {
            // A new challenger starts from nothing: the sum so far was for another section.
            sum = 0
            state.section = challenger
        } else if let last = state.lastLook {
            // Between two looks the lead is taken as the straight line from one to the other
            // (trapezoids), over at most `stale_after_s` (how long a reading counts), so a tag heard
            // every few seconds still moves. A lone reading from another section after the current
            // one's links went stale counts as three margins and moves the device after about half
            // the dwell: the sweep keeps adding while it is fresh. A new or restored track (no look
            // yet) starts its clock now.
            let dt = Double(min(time - last, stale)) / 1000
            sum = max(0, sum + ((state.lastLead + lead) / 2 - margin) * dt)
        }
        state.sum = sum
        state.lastLead = lead
        state.lastLook = time
        // The sweep looks again only while the sum can grow.
        guard let challenger, lead > margin else {
            state.challenger = nil
            return .stay
        }
        state.challenger = challenger
        // Across the store takes as long as walking through the sections between.
        let between = max(1, min(Int(hops[current][challenger - storeStart[current]]), 8))
        let perHop = max(dwell, Self.minimumHopSeconds)
        return sum >= margin * (dwell + perHop * Double(between - 1)) ? .move(to: challenger) : .stay
    }

    func moved(_ state: inout DeviceState, at time: EventTime) {
        state.challenger = nil
        state.sum = 0
        state.lastLook = time
        state.section = nil
    }

    func stopWatching(_ state: inout DeviceState) { state.challenger = nil }

    func isWatching(_ state: DeviceState) -> Bool { state.challenger != nil }
}
