extension AggregationEngine {
    /// The device enters `store` at `time`: the store enter event, then its first section — the
    /// configured rule's choice on the evidence of every fresh link.
    mutating func enterStore(_ track: Int, store: Int, at time: EventTime, into out: inout [EngineOutput]) {
        tracks[track].state = .inside
        tracks[track].store = store
        tracks[track].section = nil
        tracks[track].stateSince = time
        tracks[track].storeSince = time
        // Sightings that came in while the entry awaited the store's gateways count as in it.
        let heardSince = tracks[track].links.lazy.filter { Int($0.store) == store }.map(\.filter.time).max()
        tracks[track].lastSeenInStore = max(time, heardSince ?? time)
        tracks[track].entry = nil
        sectionRule.stopWatching(track: track)
        tracks[track].rate = ReceptionRate()
        tracks[track].rate.count(at: time)
        tracks[track].street.probability = 0
        tracks[track].street.updated = nil
        occupancy.add(1, store: store, at: time)
        // The store event already describes the section the device is about to be placed in.
        let evidence = sectionEvidence(track, at: time)
        if let first = evidence.strongest {
            updateQuality(track, sectionEvidence(track, at: time, current: first.section), in: first.section)
        }
        if chain.stores[store].notifyOnEntry {
            emitTransition(track, .enter, section: nil, other: nil, at: time, dwell: nil, into: &out)
        }
        let verdict = sectionRule.enter(track: track, evidence: evidence, at: time)
        apply(verdict, to: track, at: time, into: &out)
        if tracks[track].section == nil { emitState(track, at: time, into: &out) }
    }
}
