extension AggregationEngine {
    /// Time-driven decisions at the watermark: the decisions still awaiting a gateway that lags
    /// it, exits for silence, `unknown` when the gateways that could hear a device are offline,
    /// challengers the section rule is watching, occupancy, forgetting.
    mutating func sweep(at watermark: EventTime, into out: inout [EngineOutput]) {
        let listening = clock.listening(at: watermark, silence: gateways.silence)
        let heardTo = chain.stores.map { gateways.heardTo($0.gateways, listening) }
        for store in presence.storesAwaiting {
            let horizon = gateways.heardTo(chain.stores[store].gateways, listening, forDecisions: true) ?? watermark
            decideAwaiting(store: store, upTo: max(horizon, watermark), into: &out)
        }
        for track in 0..<devices.tracks where devices.isLive(track) {
            let device = presence[track]
            guard let store = device.presence.visit?.store else {
                if watermark - device.lastSeen > Self.forgetAfter { forget(track) }
                continue
            }
            let threshold = presence.exitThreshold(track, tuning: tuning)
            switch silenceEvidence(track, device, listening, heardTo: heardTo[store], threshold: threshold) {
            case .listening(let quiet, let since):
                if quiet > threshold {
                    exitStore(track, at: presence.exitTime(track, at: watermark, since: since, threshold: threshold, overdue: quiet - threshold), into: &out)
                } else if rule.isWatching(track) {
                    decideSection(track, at: watermark, into: &out)
                }
            case .deaf(let quiet, let since):
                // The gateways that could hear it are down: nobody can tell where it is...
                let timeout = tuning.exitTimeout
                if let quiet, quiet > timeout {
                    // ...but the rest of the store has listened for the whole exit timeout
                    // and heard nothing: it has left.
                    exitStore(track, at: presence.exitTime(track, at: watermark, since: since, threshold: timeout, overdue: quiet - timeout), into: &out)
                } else if let since = presence.markUnknown(track, at: watermark) {
                    emitState(track, at: since, into: &out)
                }
            }
        }
        out.append(contentsOf: presence.flushOccupancy(at: watermark).lazy.map { .occupancy($0) })
    }
}
