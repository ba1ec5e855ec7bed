extension AggregationEngine {
    /// Where a sighting by `gateway` at `time` puts the device: into a store once there is enough
    /// evidence, into another store it has clearly moved to, back from `unknown`, or — in its own
    /// store — through the section rule and the street test.
    mutating func place(_ track: Int, heardBy gateway: Int, at time: EventTime, into out: inout [EngineOutput]) {
        let store = Int(gatewayStore[gateway])
        // Decisions run on the device's own clock, which never goes back: reports from different
        // gateways interleave, and an older one must not date a decision before an earlier one.
        let now = tracks[track].lastSeen ?? time
        switch tracks[track].state {
        case .outside:
            // A sighting from before the exit (a gateway's backlog arriving late) is history, not
            // evidence of a return: it would re-enter the device behind its own exit.
            guard time > tracks[track].stateSince else { return }
            if let exit = tracks[track].street.exit, exit.store == store, now - exit.time < Street.reentryGuard {
                // Seen walking away from this store a moment ago: back in only once it no longer
                // looks like the street.
                _ = streetStep(track, store: store, at: now)
                guard tracks[track].street.probability < Street.reentryProbability else { return }
            }
            if gatherEntryEvidence(track, store: store, at: now) {
                enterStore(track, store: store, at: now, into: &out)
            }
        case .inside, .unknown:
            if store == tracks[track].store {
                heardInOwnStore(track, store: store, at: time, now: now, into: &out)
            } else if gatherEntryEvidence(track, store: store, at: now) {
                // Heard convincingly in another store while the current one has gone quiet: it moved.
                let stale = Int64(tuning.staleAfterSeconds * 1000)
                let quiet = tracks[track].lastSeenInStore.map { now - $0 >= stale } ?? true
                if quiet {
                    exitStore(track, at: now, into: &out)
                    enterStore(track, store: store, at: now, into: &out)
                }
            }
        }
    }

    /// A gateway of the device's own store heard it: an `unknown` device is inside again; one
    /// inside has its section decided, and the street test may see it leaving.
    private mutating func heardInOwnStore(_ track: Int, store: Int, at time: EventTime, now: EventTime, into out: inout [EngineOutput]) {
        tracks[track].lastSeenInStore = max(tracks[track].lastSeenInStore ?? time, time)
        tracks[track].rate.count(at: time)
        if tracks[track].state == .unknown {
            // A gateway hears it again: it never left. No enter event, only the state.
            tracks[track].state = .inside
            // Not before the unknown spell it ends (a batch can carry older sightings).
            tracks[track].stateSince = max(now, tracks[track].stateSince)
            decideSection(track, at: now, into: &out)
            emitState(track, at: now, into: &out)
            return
        }
        decideSection(track, at: now, into: &out)
        if streetModels[store] != nil && streetStep(track, store: store, at: now) {
            exitStore(track, at: now, into: &out)
            tracks[track].street.exit = (store, now)
        }
    }

    /// Counts a sighting towards entering `store`; true once there is enough evidence
    /// (`min_sightings_to_enter` within `enter_window_s`).
    mutating func gatherEntryEvidence(_ track: Int, store: Int, at time: EventTime) -> Bool {
        let window = Int64(tuning.enterWindowSeconds * 1000)
        var candidate = tracks[track].entry ?? EntryCandidate(store: store, count: 0, start: time)
        if candidate.store != store || time - candidate.start > window {
            candidate = EntryCandidate(store: store, count: 0, start: time)
        }
        candidate.count += 1
        tracks[track].entry = candidate
        return candidate.count >= tuning.minSightingsToEnter
    }
}
