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
            let track = devices.track(of: state.device) ?? newTrack(state.device)
            if state.state == .outside {
                // Only its sequence matters: a device that comes back before it would have been
                // forgotten goes on counting where it left off, across the restart.
                tracks[track].state = .outside
                tracks[track].store = store
                tracks[track].stateSince = EventTime(state.since)
                tracks[track].lastSeen = EventTime(state.lastSeen)
                tracks[track].sequence = state.sequence
                continue
            }
            let section = state.section.flatMap { chain.sectionIndex(store: state.store, section: $0) }
            tracks[track].state = state.state
            tracks[track].store = store
            tracks[track].section = section
            tracks[track].stateSince = EventTime(state.since)
            tracks[track].storeSince = EventTime(state.storeSince ?? state.since)
            tracks[track].sectionSince = EventTime(state.sectionSince ?? state.since)
            tracks[track].lastSeen = EventTime(state.lastSeen)
            tracks[track].lastSeenInStore = EventTime(state.lastSeen)
            tracks[track].sequence = state.sequence
            if let exit = state.exitAt { exits.append((track, EventTime(exit))) }
            occupancy.add(1, store: store, at: nil)
            if let section { occupancy.add(1, section: section, at: nil) }
        }
        for (track, at) in exits where devices.isLive(track) && tracks[track].isInStore {
            // `at` is the exit the previous run decided, after the visit's last sighting; the
            // restored `last_seen` may be later (heard outside since, as the file says).
            let time = max(at, tracks[track].stateSince, tracks[track].sectionSince, tracks[track].storeSince)
            exitStore(track, at: time, into: &out)
        }
        return skipped
    }
}
