extension AggregationEngine {
    /// The radio evidence about the device on `track` in its store (or in `store`) at `time`,
    /// weighed against `standing` (by default its own section); with what the configured rule
    /// reads besides (``SectionRule/reads``). Reads the device's links in place.
    func sectionEvidence(_ track: Int, in store: Int? = nil, at time: EventTime, standing: SectionEvidence.Standing? = nil) -> SectionEvidence {
        let device = presence[track].presence
        guard let store = store ?? device.store else { preconditionFailure("section evidence for a device that never entered a store") }
        var evidence = SectionEvidence(store: store, standing: standing ?? device.section.map { .section($0) } ?? .unplaced)
        let weighed = evidence.current
        var nearestValue = -Double.infinity
        links.links[track].withUnsafeBufferPointer { links in
            for (i, link) in links.enumerated() where Int(link.store) == store && self.links.isFresh(link, at: time) {
                let level = SectionEvidence.Level(
                    value: link.filter.estimate, variance: link.filter.variance(at: time, processNoise: self.links.processNoise))
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
        let reads = rule.reads
        if reads.contains(.everyLink) {
            evidence.links = links.freshLinks(track, in: store, at: time, localIndex: gatewayIndex.local)
            if !evidence.links.isEmpty {
                evidence.missed = links.missedGateways(track, of: chain.stores[store].gateways, fresh: evidence.links, at: time, gateways: gateways)
            }
        }
        if reads.contains(.window) { evidence.windowStrongest = links.recent?.strongestSection(track, store: store, at: time) }
        return evidence
    }

    /// Proximity, accuracy and confidence of the device in `section` (nil: no section yet) from
    /// `evidence`; unchanged without a fresh link.
    mutating func updateQuality(_ track: Int, _ evidence: SectionEvidence, in section: Int?) {
        guard let strongest = evidence.strongest else { return }
        let link = links.links[track][strongest.link]
        let exponent = chain.gateways[Int(link.gateway)].pathLossExponent
        let distance = PathLoss.distance(rssi: link.filter.estimate, measuredPower: link.measuredPower, exponent: exponent)
        reports.locate(track, proximity: PathLoss.proximity(distance: distance), accuracy: distance)
        if let confidence = rule.confidence(track, in: section, evidence) { reports.trust(track, confidence) }
    }
}
