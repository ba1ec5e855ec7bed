import BeaconCore
import BeaconEngine
public import BeaconWire

extension MessageProcessor {
    /// The aggregator's status payload at `now`; `droppedPublishes` is the service's count of
    /// messages it gave up publishing (nil leaves it out), `snapshotError` its last snapshot
    /// write's failure, if the last write failed.
    public func status(
        now: Int64, version: String, online: Bool = true, droppedPublishes: UInt64? = nil,
        snapshotError: AggregatorStatus.SnapshotError? = nil
    ) -> AggregatorStatus {
        var loss: [GatewayID: UInt64] = [:]
        var restartGap: [GatewayID: UInt64] = [:]
        var duplicates: [GatewayID: UInt64] = [:]
        var seqAnomalies: [GatewayID: UInt64] = [:]
        var offline: [GatewayID: UInt64] = [:]
        let chain = engine.chain
        for (g, counters) in engine.gatewayCounters().enumerated() {
            if counters.lost > 0 { loss[counters.id] = counters.lost }
            if counters.restartGap > 0 { restartGap[counters.id] = counters.restartGap }
            if counters.duplicates > 0 { duplicates[counters.id] = counters.duplicates }
            if counters.seqAnomalies > 0 { seqAnomalies[counters.id] = counters.seqAnomalies }
            // Before the first batch the engine has no time to judge silence by.
            if !counters.online, engine.latestEventTime != nil, stores.contains(chain.stores[chain.gateways[g].store].major) {
                offline[counters.id] = counters.lastBatch.map { UInt64(max(0, $0)) } ?? 0
            }
        }
        // From the batches, not the engine's clock: in live mode the service's tick moves that
        // to the wall clock every 250 ms, which would hide both a backlog and a silence.
        let lag = counters.newestSent.map { max(0, now - $0) }
        return AggregatorStatus(
            aggregator: aggregator, state: online ? .online : .offline, version: version, time: now,
            stores: stores.isAll ? nil : stores.description,
            counters: .init(messages: counters.messages, batches: engine.statistics.batches, sightings: counters.sightings,
                            devices: UInt64(engine.trackedDevices), rejects: counters.rejects, loss: loss, restartGap: restartGap,
                            duplicates: duplicates, seqAnomalies: seqAnomalies,
                            unknownGatewayStatuses: counters.unknownGatewayStatuses > 0 ? counters.unknownGatewayStatuses : nil,
                            lagMilliseconds: lag, droppedPublishes: droppedPublishes,
                            offline: offline, offlineCount: offline.isEmpty ? nil : UInt64(offline.count)),
            snapshotError: snapshotError)
    }
}
