import Foundation

extension AggregationEngine {
    /// The street test: is a device that is inside actually walking away outside a street door,
    /// still heard through it? A two-state filter (in the store / on the street) with the HMM's
    /// likelihood: the best in-store section against the best street position, the device's common
    /// offset profiled out, evidence tempered to once per second. Returns true when the device has
    /// left (P(street) ≥ ``Street/exitProbability``).
    mutating func streetStep(_ track: Int, store: Int, at time: EventTime) -> Bool {
        guard let model = streetModels[store] else { return false }
        let last = tracks[track].street.updated
        if let last, time - last < Street.stepMilliseconds { return tracks[track].street.probability >= Street.exitProbability }
        let dt = last.map { Double(time - $0) / 1000 } ?? 1
        tracks[track].street.updated = time
        var p = tracks[track].street.probability
        // Predict: only a street-door section leads out.
        let own = tracks[track].section.flatMap { model.sections.local[$0] }
        let atDoor = tracks[track].state != .inside || own.map { model.doorSections.contains($0) } ?? true
        if !atDoor && p < Street.negligible {
            // Deep in the store and nowhere near leaving: the walk to the door comes first.
            tracks[track].street.probability = 0
            return false
        }
        let leave = atDoor ? 1 - exp(-dt / Street.stayTime) : 0
        let back = 1 - exp(-dt / Street.returnTime)
        p = p * (1 - back) + (1 - p) * leave
        let weight = min(1, dt / Street.evidenceTime)
        // Evidence for "inside" beyond this leaves P(street) at its floor whatever its exact size
        // (p·r / (p·r + 1 − p) ≤ floor for every ratio r ≤ e^(−weight·cutoff)), so the search for
        // the best in-store position may stop once one position reaches it.
        let floor = Street.floorProbability
        let cutoff = -log(floor * (1 - p) / (p * (1 - floor))) / weight
        if let evidence = streetEvidence(track, model: model, section: own, at: time, insideCutoff: weight * cutoff <= 50 ? cutoff : .infinity) {
            let ratio = exp(max(-50, min(50, weight * evidence)))
            p = p * ratio / (p * ratio + (1 - p))
        }
        tracks[track].street.probability = min(max(p, Street.floorProbability), Street.ceilingProbability)
        return tracks[track].street.probability >= Street.exitProbability
    }

    /// log p(readings | street) − log p(readings | inside), each at its best position; nil when no
    /// link of the store is fresh. When some in-store position beats the street by
    /// `insideCutoff` the search stops there (the device's own `section`, local, is tried first),
    /// and the result is only known to be ≤ −`insideCutoff`. Scratch space is on the stack: this
    /// runs once a second for every device near a street door.
    func streetEvidence(_ track: Int, model: StreetModel, section own: Int?, at time: EventTime, insideCutoff: Double = .infinity) -> Double? {
        withUnsafeTemporaryAllocation(of: FreshLink.self, capacity: DeviceTrack.maxLinks) { buffer -> Double? in
            let n = freshLinks(track, at: time, into: buffer)
            guard n > 0 else { return nil }
            let fresh = UnsafeBufferPointer(rebasing: buffer[..<n])
            var power = 0.0
            for l in fresh { power += l.power }
            power /= Double(n)
            return withUnsafeTemporaryAllocation(of: MissedGateway.self, capacity: model.gateways.count) { scratch in
                // Gateways of the store that have not heard it lately: each says "too weak here".
                let m = missedGateways(track, of: model.gateways, fresh: fresh, at: time, into: scratch)
                let missed = UnsafeBufferPointer(rebasing: scratch[..<m])
                let street = StreetLikelihood.bestLogLikelihood(fresh, missed: missed, power: power, table: model.pathLoss)
                let inside = StreetLikelihood.bestLogLikelihood(
                    fresh, missed: missed, power: power, table: model.insideLoss,
                    first: own.map { model.insidePositions[$0] } ?? 0..<0, enough: street + insideCutoff)
                return street - inside
            }
        }
    }
}
