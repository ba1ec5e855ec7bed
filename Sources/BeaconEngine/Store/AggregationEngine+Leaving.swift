extension AggregationEngine {
    /// The section rule says the device, still heard, is just outside its store (the calibrated
    /// rule's outside state holds its odds): it leaves at `time`, when that was decided — through
    /// the same exit as a silence's, so its events, occupancy and state stay consistent. Only a
    /// device inside: with the gateways that could hear it down (`unknown`) the evidence is not
    /// all there. Coming back in then needs the rule's consent (``admitted(_:to:at:)``).
    mutating func leaveStore(_ track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        guard tracks[track].state == .inside else { return }
        // Never before the device's state or section began (they can lie past the watermark the
        // sweep decides at), so its events stay in order.
        exitStore(track, at: max(time, tracks[track].stateSince, tracks[track].sectionSince), into: &out)
    }

    /// Whether device `track`, outside, may enter `store` on what the store's gateways hear at
    /// `time`: the rule's consent where it knows what just outside the store looks like
    /// (``SectionRule/needsConsent(store:)``), else yes. Asked at the watermark, once every live
    /// gateway of the store has reported up to `time`: a gateway whose report is still on its
    /// way would count as one that missed the device, and just after an exit (which drops the
    /// store's links) every gateway but the first to hear it again would.
    mutating func admitted(_ track: Int, to store: Int, at time: EventTime) -> Bool {
        guard entryNeedsConsent[store] else { return true }
        var evidence = SectionEvidence(store: store, current: nil)
        evidence.links = freshLinks(track, in: store, at: time)
        guard !evidence.links.isEmpty else { return false }
        evidence.missed = missedGateways(track, of: chain.stores[store].gateways, fresh: evidence.links, at: time)
        return sectionRule.admits(track: track, evidence: evidence, at: time)
    }
}
