import BeaconCore

extension AggregationEngine {
    /// Loss, duplicates, sequence anomalies and restart gaps per gateway, for the status topic.
    public func gatewayCounters() -> [GatewayCounters] {
        let silence = Int64(tuning.gatewaySilenceSeconds * 1000)
        return chain.gateways.indices.map { gateway in
            let track = gateways[gateway]
            let online = clock.watermark.map { track.isOnline(at: $0, arrival: clock.arrival?.now, silence: silence) } ?? false
            return GatewayCounters(
                id: chain.gateways[gateway].id, received: track.received, lost: track.lost, restartGap: track.restartGap,
                duplicates: track.duplicates, seqAnomalies: track.seqAnomalies, online: online, lastBatch: track.lastBatch?.milliseconds ?? .min)
        }
    }

    /// The highest batch processed per gateway (for the snapshot file); gateways never heard are left out.
    public func gatewayProgress() -> [GatewayResumePoint] {
        chain.gateways.indices.compactMap { gateway in
            gateways[gateway].current.map {
                GatewayResumePoint(id: chain.gateways[gateway].id, seq: $0.highest, sent: $0.newestSent.milliseconds, epoch: $0.epoch)
            }
        }
    }

    /// Continues each gateway's sequence from a previous run's snapshot, so that batches that went
    /// missing across the restart are counted (see ``GatewayTrack/restartGap``). Unknown gateways
    /// are ignored; returns how many were resumed.
    @discardableResult
    public mutating func resumeGateways(_ progress: [GatewayResumePoint]) -> Int {
        var resumed = 0
        for point in progress {
            guard let gateway = chain.gatewayIndex[point.id] else { continue }
            gateways[gateway].resume(seq: point.seq, sent: EventTime(point.sent), epoch: point.epoch)
            resumed += 1
        }
        return resumed
    }
}
