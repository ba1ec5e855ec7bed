extension FingerprintRule {
    /// One step of the forward filter at `time`: carried forward over the time since the last
    /// step, weighed by the evidence — the fingerprints' likelihood with the device's `offset`
    /// from the walking tag profiled out, counted less while the device stands — normalised;
    /// the offset learns from it. Returns the state (local) with the most belief; nil with no
    /// belief yet and no fresh link. A step at or before the last one changes nothing (links
    /// heard in the same millisecond, the sweep at the watermark).
    func step(_ belief: inout Belief?, offset: inout DeviceOffset, model: StoreFingerprints, walking: WalkingModel,
              evidence: SectionEvidence, at time: EventTime) -> Int? {
        if let last = belief?.filter.time, (time - last).seconds > forgetAfter { belief = nil }
        guard var next = belief else {
            guard !evidence.links.isEmpty else { return nil }
            let weighed = Self.weigh(evidence, model: model, offset: offset)
            // The first step of a belief: the evidence alone, in full.
            let filter = ForwardFilter(evidence: weighed.logLikelihood, at: time)
            offset.learn(filter, weighed, weight: 1)
            belief = Belief(store: evidence.store, filter: filter)
            if let walkingChange = model.walkingChange { belief?.movement.look(at: evidence.links, at: time, walkingChange: walkingChange) }
            return filter.mostLikely
        }
        let dt = (time - next.filter.time).seconds
        guard dt > 0 else { return next.filter.mostLikely }
        // Taken out, so that the belief is changed in place rather than copied.
        belief = nil
        next.filter.predict(to: time, by: walking)
        if evidence.links.isEmpty {
            next.filter.settle()
        } else {
            let weighed = Self.weigh(evidence, model: model, offset: offset)
            var weight = Self.evidencePerSecond * min(dt, Self.longestStep)
            if let walkingChange = model.walkingChange {
                next.movement.look(at: evidence.links, at: time, walkingChange: walkingChange)
                weight *= next.movement.evidenceShare
            }
            next.filter.weigh(weighed.logLikelihood, weight: weight)
            offset.learn(next.filter, weighed, weight: weight)
        }
        belief = next
        return next.filter.mostLikely
    }

    /// The evidence's log-likelihood per state, and per state the offset that explains it best
    /// and how precisely (``StoreFingerprints/logLikelihood(links:missed:prior:into:offsets:precisions:)``);
    /// with devices taken as heard as the tag is, the tag's levels as they are.
    static func weigh(_ evidence: SectionEvidence, model: StoreFingerprints, offset: DeviceOffset)
        -> (logLikelihood: [Double], offsets: [Double], precisions: [Double]) {
        var logLikelihood = [Double](repeating: 0, count: model.stateCount)
        var offsets = logLikelihood, precisions = logLikelihood
        if let prior = offset.stepPrior {
            model.logLikelihood(links: evidence.links, missed: evidence.missed, prior: prior, into: &logLikelihood,
                                offsets: &offsets, precisions: &precisions)
        } else {
            model.logLikelihood(links: evidence.links, missed: evidence.missed, into: &logLikelihood)
        }
        return (logLikelihood, offsets, precisions)
    }
}

extension DeviceOffset {
    /// Learns from a step weighed by `weighed`: each state's offset and precision, weighted by
    /// the `filter`'s belief after the step.
    mutating func learn(_ filter: ForwardFilter, _ weighed: (logLikelihood: [Double], offsets: [Double], precisions: [Double]),
                        weight: Double) {
        var seen = 0.0, precision = 0.0
        for s in weighed.offsets.indices {
            seen += filter.belief[s] * weighed.offsets[s]
            precision += filter.belief[s] * weighed.precisions[s]
        }
        learn(offset: seen, precision: precision, weight: weight)
    }
}
