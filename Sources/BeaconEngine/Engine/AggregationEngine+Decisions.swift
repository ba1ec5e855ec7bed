extension AggregationEngine {
    /// After a batch of `gateway`: decides what its store's gateways now all cover.
    mutating func decideAwaiting(inStoreOf gateway: Int, into out: inout [EngineOutput]) {
        let store = Int(gatewayIndex.store[gateway])
        guard presence.isAwaiting(store), let watermark = clock.watermark else { return }
        let listening = clock.listening(at: watermark, silence: gateways.silence)
        let horizon = max(gateways.heardTo(chain.stores[store].gateways, listening, forDecisions: true) ?? watermark, watermark)
        decideAwaiting(store: store, upTo: horizon, into: &out)
    }

    /// Makes every decision waiting in `store`'s queue whose moment `horizon` covers; the rest wait.
    mutating func decideAwaiting(store: Int, upTo horizon: EventTime, into out: inout [EngineOutput]) {
        var waiting: [Int] = []
        for track in presence.takeQueue(of: store) {
            var waits = false
            while let decision = presence.nextDecision(track, in: store, upTo: horizon, waits: &waits) {
                switch decision {
                case .entry(let ready):
                    completeEntry(track, store: store, at: ready, into: &out)
                case .section(let since):
                    let now = max(since, min(presence[track].lastSeen, horizon))
                    decideSectionAndStreet(track, store: store, at: now, into: &out)
                }
            }
            if waits {
                waiting.append(track)
            } else {
                presence.leaveQueue(track, of: store)
            }
        }
        presence.requeue(waiting, in: store)
    }

    /// The entry into `store` that was ready at `time`: from outside, an entry — once the rule
    /// consents, where it knows what just outside the store looks like (refused, the sightings
    /// gather again); from another store that had gone quiet about the device then, a move.
    /// Either needs the street test's consent where the store keeps passers-by out.
    private mutating func completeEntry(_ track: Int, store: Int, at time: EventTime, into out: inout [EngineOutput]) {
        if let visit = presence[track].presence.visit {
            guard visit.store != store, streetAdmits(track, to: store, at: time) else { return }
            exitStore(track, at: time, into: &out)
        } else {
            guard streetAdmits(track, to: store, at: time), admitted(track, to: store, at: time) else { return }
        }
        enterStore(track, store: store, at: time, into: &out)
    }

    /// Whether the device on `track`, outside, may enter `store` on what the store's gateways hear
    /// at `time`: the rule's consent where it knows what just outside the store looks like
    /// (``EntryConsent``), else yes. Asked at the watermark, once every live gateway of the store
    /// has reported up to `time`: a gateway whose report is still on its way would count as one
    /// that missed the device, and just after an exit (which drops the store's links) every
    /// gateway but the first to hear it again would.
    private mutating func admitted(_ track: Int, to store: Int, at time: EventTime) -> Bool {
        guard let consent = rule as? any EntryConsent, consent.judgesEntry(to: store) else { return true }
        let evidence = sectionEvidence(track, in: store, at: time, standing: .outside)
        guard !evidence.links.isEmpty else { return false }
        return rule.decide(track, evidence, at: time).section != nil
    }

    /// The device enters `store` at `time`: the store enter event, then its first section — the
    /// configured rule's choice on the evidence of every fresh link.
    mutating func enterStore(_ track: Int, store: Int, at time: EventTime, into out: inout [EngineOutput]) {
        presence.enter(track, store: store, at: time, heardSince: links.latestReport(track, in: store))
        rule.endVisit(track)
        street.startVisit(track)
        let evidence = sectionEvidence(track, in: store, at: time, standing: .entering)
        // The store event already describes the section the device is about to be placed in.
        if let first = evidence.strongest {
            updateQuality(track, sectionEvidence(track, in: store, at: time, standing: .section(first.section)), in: first.section)
        }
        if chain.stores[store].notifyOnEntry { emitTransition(track, .enter, store: store, section: nil, at: time, into: &out) }
        apply(rule.decide(track, evidence, at: time), to: track, at: time, into: &out)
        if presence[track].presence.section == nil { emitState(track, at: time, into: &out) }
    }

    /// The device leaves its store at `time`: its section's exit, the store's, and its state.
    mutating func exitStore(_ track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        guard let visit = presence.exit(track, at: time) else { return }
        if let section = visit.section, chain.sections[section.index].notifyOnExit {
            emitTransition(track, .exit, store: visit.store, section: section.index, at: time, dwell: time - section.since, into: &out)
        }
        reports.locate(track, proximity: .unknown, accuracy: nil)
        if chain.stores[visit.store].notifyOnExit {
            emitTransition(track, .exit, store: visit.store, section: nil, at: time, dwell: time - visit.since, into: &out)
        }
        // Drop the store's links: they describe a visit that is over.
        links.drop(track, store: visit.store)
        rule.endVisit(track)
        emitState(track, at: time, into: &out)
    }

    /// The rule says the device, still heard, is just outside its store: it leaves at `time`,
    /// when that was decided — through the same exit as a silence's. Only a device inside: with
    /// the gateways that could hear it down (`unknown`) the evidence is not all there.
    private mutating func leaveStore(_ track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        let device = presence[track]
        guard case .inside = device.presence else { return }
        exitStore(track, at: device.earliestEvent.map { max(time, $0) } ?? time, into: &out)
    }

    /// The section rule's decision, then the street test, for a device in its store.
    private mutating func decideSectionAndStreet(_ track: Int, store: Int, at time: EventTime, into out: inout [EngineOutput]) {
        guard presence[track].isInStore else { return }
        decideSection(track, at: time, into: &out)
        guard case .inside = presence[track].presence, street.covers(store), streetStep(track, store: store, at: time) else { return }
        exitStore(track, at: time, into: &out)
        street.noteExit(track, store: store, at: time)
    }

    /// Lets the configured rule decide the device's section at `time`, and moves it if the rule says so.
    mutating func decideSection(_ track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        let evidence = sectionEvidence(track, at: time)
        guard evidence.strongest != nil else { return }
        // Proximity and confidence are computed when something is published, not per sighting.
        apply(rule.decide(track, evidence, at: time), to: track, at: time, into: &out)
    }

    /// Records a verdict's confidence and makes its move: into a section, or out of the store.
    private mutating func apply(_ verdict: SectionVerdict, to track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        if let confidence = verdict.confidence { reports.trust(track, confidence) }
        switch verdict.destination {
        case .section(let section)?: changeSection(track, to: section, at: time, into: &out)
        case .outside?: leaveStore(track, at: time, into: &out)
        case nil: break
        }
    }

    /// Moves the device to `section` (or into its first section), with the exit and enter events.
    private mutating func changeSection(_ track: Int, to section: Int, at time: EventTime, into out: inout [EngineOutput]) {
        let store = chain.sections[section].store
        let old = presence.move(track, to: section, at: time)
        if let old, chain.sections[old.index].notifyOnExit {
            emitTransition(track, .exit, store: store, section: old.index, other: section, at: time, dwell: time - old.since, into: &out)
        }
        // The events describe the new section: how sure we are of *it*, how near its gateway is.
        updateQuality(track, sectionEvidence(track, at: time), in: section)
        if chain.sections[section].notifyOnEntry {
            emitTransition(track, .enter, store: store, section: section, other: old?.index, at: time, into: &out)
        }
        emitState(track, at: time, into: &out)
    }

    /// One step of the street test for the device on `track` in `store` at `time`: true when it
    /// has left (StreetTest.swift).
    mutating func streetStep(_ track: Int, store: Int, at time: EventTime) -> Bool {
        let device = presence[track].presence
        let reading = StreetTest.Reading(section: device.section, inside: device.state == .inside)
        return street.step(track, store: store, at: time, reading: reading) { [links, gateways, local = gatewayIndex.local] model, cutoff in
            links.streetEvidence(track, in: store, at: time, section: reading.section, localIndex: local, gateways: gateways, model: model, cutoff: cutoff)
        }
    }

    /// Whether the street test lets the device on `track` into `store` at `time`: yes unless the
    /// store keeps passers-by out (StreetTest.swift, EntryJudgement.swift).
    private mutating func streetAdmits(_ track: Int, to store: Int, at time: EventTime) -> Bool {
        guard street.judgesEntries[store] else { return true }
        return street.admits(track, to: store, at: time) { [links, gateways, local = gatewayIndex.local] model, cutoff in
            links.streetEvidence(track, in: store, at: time, section: nil, localIndex: local, gateways: gateways, model: model, cutoff: cutoff)
        }
    }
}
