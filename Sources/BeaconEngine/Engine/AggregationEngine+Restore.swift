extension AggregationEngine {
    /// Restores devices from their last published states (retained topics or a snapshot file)
    /// before any sighting is processed, so that a restart invents no enter event, forgets no
    /// one inside, and keeps the per-device sequence of those outside (until they are forgotten).
    /// States naming stores not in the chain are skipped and returned; a section the chain no
    /// longer has restores the store only (the next sightings place the device).
    @discardableResult
    public mutating func restore(_ snapshots: [RestoredState]) -> [RestoredState] {
        var out: [EngineOutput] = []
        let skipped = restore(snapshots, into: &out)
        precondition(out.isEmpty, "states with an exit to decide again need restore(_:into:)")
        return skipped
    }

    /// The same; exits a previous run decided that never reached the broker
    /// (``RestoredState/exitAt``) are decided again here, at their own time, and appended to `out`
    /// — before anything else, so that a device back by then enters afresh instead of continuing
    /// a stale visit.
    @discardableResult
    public mutating func restore(_ snapshots: [RestoredState], into out: inout [EngineOutput]) -> [RestoredState] {
        var skipped: [RestoredState] = []
        var exits: [(track: Int, at: EventTime)] = []
        for state in snapshots {
            guard let store = chain.storeIndex[state.store] else {
                skipped.append(state)
                continue
            }
            let lastSeen = EventTime(state.lastSeen)
            let track = devices.track(of: state.device) ?? newTrack(state.device, seen: lastSeen)
            presence.restore(track, Self.presence(of: state, store: store, in: chain), lastSeen: lastSeen)
            reports.restore(track, sequence: state.sequence)
            if state.state != .outside, let exit = state.exitAt { exits.append((track, EventTime(exit))) }
        }
        for (track, at) in exits where devices.isLive(track) {
            // `at` is the exit the previous run decided, after the visit's last sighting; the
            // restored `last_seen` may be later (heard outside since, as the file says).
            guard let visit = presence[track].presence.visit else { continue }
            let earliest = max(visit.since, presence[track].earliestEvent ?? visit.since)
            exitStore(track, at: max(at, earliest), into: &out)
        }
        return skipped
    }

    /// The presence a published state describes, in `store` (its index in `chain`). Only the
    /// sequence of a device outside matters: one that comes back before it would have been
    /// forgotten goes on counting where it left off, across the restart.
    private static func presence(of state: RestoredState, store: Int, in chain: Chain) -> Presence {
        let since = EventTime(state.since)
        guard state.state != .outside else { return .outside(Departure(store: store, section: nil, time: since)) }
        let section = state.section.flatMap { chain.sectionIndex(store: state.store, section: $0) }
        var visit = Visit(store: store, since: EventTime(state.storeSince ?? state.since))
        if let section { visit.section = (section, EventTime(state.sectionSince ?? state.since)) }
        return state.state == .inside ? .inside(visit, since: since) : .unknown(visit, since: since)
    }
}
