extension AggregationEngine {
    /// The radio evidence about device `track` in its store at `time`, weighed against `current`
    /// (by default its own section); with every fresh link and missed gateway when the configured
    /// rule weighs them. Reads the track's scalars and borrows its links: copying the whole track
    /// would retain its id and arrays on every sighting.
    func sectionEvidence(_ track: Int, at time: EventTime, current: Int? = nil) -> SectionEvidence {
        guard let store = tracks[track].store else { preconditionFailure("section evidence for a device that never entered a store") }
        var evidence = SectionEvidence(store: store, current: current ?? tracks[track].section)
        let weighed = evidence.current
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        var nearestValue = -Double.infinity
        tracks[track].links.withUnsafeBufferPointer { links in
            for (i, link) in links.enumerated() where Int(link.store) == store && time - link.filter.time <= stale {
                let level = SectionEvidence.Level(
                    value: link.filter.estimate, variance: link.filter.variance(at: time, processNoise: tuning.processNoise))
                let section = Int(link.section)
                if evidence.strongest.map({ level.value > $0.level.value }) ?? true {
                    evidence.strongest = (section, level, i)
                }
                if section == weighed {
                    if evidence.inCurrent.map({ level.value > $0.value }) ?? true { evidence.inCurrent = level }
                } else if evidence.elsewhere.map({ level.value > $0.value }) ?? true {
                    evidence.elsewhere = level
                }
                if link.lastRSSI > nearestValue {
                    nearestValue = link.lastRSSI
                    evidence.nearest = section
                }
            }
        }
        if sectionRule.weighsEveryLink {
            evidence.links = freshLinks(track, at: time)
            if !evidence.links.isEmpty {
                evidence.missed = missedGateways(track, of: chain.stores[store].gateways, fresh: evidence.links, at: time)
            }
        }
        return evidence
    }

    /// Lets the configured rule decide the device's section at `time`, and moves it if the rule says so.
    mutating func decideSection(_ track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        let evidence = sectionEvidence(track, at: time)
        guard evidence.strongest != nil else { return }
        // Proximity and confidence are computed when something is published, not per sighting.
        apply(sectionRule.decide(track: track, evidence: evidence, at: time), to: track, at: time, into: &out)
    }

    /// Records a verdict's confidence and makes its move: into a section, or out of the store.
    mutating func apply(_ verdict: SectionVerdict, to track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        if let confidence = verdict.confidence { tracks[track].confidence = confidence }
        switch verdict.destination {
        case .section(let section)?: changeSection(track, to: section, at: time, into: &out)
        case .outside?: leaveStore(track, at: time, into: &out)
        case nil: break
        }
    }

    /// Moves the device to `section` (or into its first section), with the exit and enter events.
    mutating func changeSection(_ track: Int, to section: Int, at time: EventTime, into out: inout [EngineOutput]) {
        let old = tracks[track].section
        if let old {
            occupancy.add(-1, section: old, at: time)
            if chain.sections[old].notifyOnExit {
                emitTransition(track, .exit, section: old, other: section, at: time, dwell: time - tracks[track].sectionSince, into: &out)
            }
        }
        tracks[track].section = section
        tracks[track].sectionSince = time
        sectionRule.moved(track: track, at: time)
        // The events describe the new section: how sure we are of *it*, how near its gateway is.
        updateQuality(track, sectionEvidence(track, at: time), in: section)
        occupancy.add(1, section: section, at: time)
        if chain.sections[section].notifyOnEntry {
            emitTransition(track, .enter, section: section, other: old, at: time, dwell: nil, into: &out)
        }
        emitState(track, at: time, into: &out)
    }

    /// Proximity, accuracy and confidence of the device in `section` (nil: no section yet) from
    /// `evidence`; unchanged without a fresh link.
    mutating func updateQuality(_ track: Int, _ evidence: SectionEvidence, in section: Int?) {
        guard let strongest = evidence.strongest else { return }
        let link = tracks[track].links[strongest.link]
        let exponent = chain.gateways[Int(link.gateway)].pathLossExponent
        let distance = PathLoss.distance(rssi: link.filter.estimate, measuredPower: link.measuredPower, exponent: exponent)
        tracks[track].proximity = PathLoss.proximity(distance: distance)
        tracks[track].accuracy = distance
        if let confidence = sectionRule.confidence(track: track, store: evidence.store, section: section, evidence: evidence) {
            tracks[track].confidence = confidence
        }
    }
}
