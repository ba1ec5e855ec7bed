extension AggregationEngine {
    /// What a sighting by `gateway` at `time` starts: the evidence for entering a store (or another
    /// store it may have moved to), a return from `unknown`, or — in its own store — a section
    /// decision and the street test. The decisions themselves wait until every live gateway of
    /// the store has reported up to the sighting (Store/AggregationEngine+Awaiting.swift).
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
            gatherEntryEvidence(track, store: store, at: now)
        case .inside, .unknown:
            if store == tracks[track].store {
                heardInOwnStore(track, store: store, at: time, now: now, into: &out)
            } else {
                gatherEntryEvidence(track, store: store, at: now)
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
            emitState(track, at: now, into: &out)
        }
        // Its section is decided once every live gateway of the store has reported up to now.
        if tracks[track].pendingSection == nil { tracks[track].pendingSection = now }
        queue(track, in: store)
    }

    /// Counts a sighting towards entering `store`; once there is enough evidence
    /// (`min_sightings_to_enter` within `enter_window_s`) the entry awaits the store's gateways,
    /// dated now. A device inside another store moves only once that store has gone quiet about
    /// it (`stale_after_s`), or once this store's strongest link has led its own store's by more
    /// than `switch_margin_db` for long enough (``storeLeads(_:to:candidate:at:)``): a device
    /// walking out into a neighbour's floor is still heard through the wall.
    mutating func gatherEntryEvidence(_ track: Int, store: Int, at time: EventTime) {
        if let entry = tracks[track].entry, entry.store == store, entry.readyAt != nil { return }
        let window = Int64(tuning.enterWindowSeconds * 1000)
        var candidate = tracks[track].entry ?? EntryCandidate(store: store, count: 0, start: time)
        if candidate.store != store || time - candidate.start > window {
            let lead = candidate.store == store ? candidate.lead : nil
            candidate = EntryCandidate(store: store, count: 0, start: time)
            candidate.lead = lead
        }
        candidate.count += 1
        var ready = candidate.count >= tuning.minSightingsToEnter
        if tracks[track].state != .outside {
            let leads = storeLeads(track, to: store, candidate: &candidate, at: time)
            ready = ready && (ownStoreIsQuiet(track, at: time) || leads)
        }
        if ready {
            candidate.readyAt = time
            queue(track, in: store)
        }
        tracks[track].entry = candidate
    }

    /// Whether the device's own store has not heard it for `stale_after_s` at `time`: heard
    /// convincingly in another store meanwhile, it has moved there.
    func ownStoreIsQuiet(_ track: Int, at time: EventTime) -> Bool {
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        return tracks[track].lastSeenInStore.map { time - $0 >= stale } ?? true
    }

    /// The lead rule's test between stores: `store`'s strongest fresh link against the device's
    /// own store's, less the margin, summed over time (trapezoids, each step at most
    /// `stale_after_s`, floored at zero); true when the sum has reached margin × 1 s while the lead
    /// is still over the margin — a lead of twice the margin held for a second.
    mutating func storeLeads(_ track: Int, to store: Int, candidate: inout EntryCandidate, at time: EventTime) -> Bool {
        guard let own = tracks[track].store, let there = strongestFreshLink(track, in: store, at: time) else { return false }
        let margin = tuning.switchMarginDB
        let here = strongestFreshLink(track, in: own, at: time) ?? -.infinity
        let lead = min(3 * margin, max(-3 * margin, there - here))
        var sum = 0.0
        if let last = candidate.lead {
            guard time >= last.time else { return false }
            let dt = Double(min(time - last.time, Int64(tuning.staleAfterSeconds * 1000))) / 1000
            sum = max(0, last.sum + ((last.lead + lead) / 2 - margin) * dt)
        }
        candidate.lead = StoreLead(sum: sum, lead: lead, time: time)
        return lead > margin && sum >= margin * Self.storeMoveSeconds
    }

    /// How long, at a lead of twice the margin, another store's link must lead before the device
    /// has moved there, seconds: long enough for a turn of the body at a shared wall to pass.
    static let storeMoveSeconds = 1.0

    /// The strongest fresh filtered level among the device's links to `store`'s gateways.
    func strongestFreshLink(_ track: Int, in store: Int, at time: EventTime) -> Double? {
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        var best: Double?
        for link in tracks[track].links where Int(link.store) == store && time - link.filter.time <= stale {
            best = max(best ?? link.filter.estimate, link.filter.estimate)
        }
        return best
    }
}
