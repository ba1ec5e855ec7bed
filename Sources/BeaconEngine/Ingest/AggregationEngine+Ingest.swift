public import BeaconCore

extension AggregationEngine {
    /// What became of a batch.
    public enum BatchOutcome: Sendable, Equatable {
        /// Processed.
        case accepted
        /// Apart from the gateway's run (a far `seq`, a `seq` seen again with another `sent`): its
        /// sightings were decided, but its `sent` is not to be trusted for anything else — not the
        /// gateway's coverage, not its arrival, not the chain's clock.
        case apart
        /// The same gateway and `seq` were seen before; ignored.
        case duplicate
        /// The gateway is not in the chain.
        case unknownGateway
    }

    /// Processes one gateway's batch of sightings (`sent`: Unix ms, as on the wire; `arrival`:
    /// the live service's clock when it arrived); appends what to publish to `out`.
    @discardableResult
    public mutating func ingest(
        gateway id: GatewayID, seq: UInt64, sent: Int64, epoch: Int64? = nil, arrival: Int64? = nil, observations: some Sequence<Observation>,
        into out: inout [EngineOutput]
    ) -> BatchOutcome {
        ingest(gateway: id, seq: seq, sent: EventTime(sent), epoch: epoch, arrival: arrival, into: &out) { engine, gateway, out in
            for observation in observations {
                var text = observation.device.rawValue
                text.withUTF8 { device in
                    let sighting = ObservationRef(
                        device: device, time: observation.time, rssi: observation.rssi, measuredPower: observation.measuredPower)
                    engine.observe(sighting, gateway: gateway, into: &out)
                }
            }
        }
    }

    /// The same for sightings whose device ids are borrowed bytes that passed
    /// ``DeviceID/validate(utf8:)`` (the message processor's hot path: no string per sighting).
    @discardableResult
    package mutating func ingest(
        gateway id: GatewayID, seq: UInt64, sent: Int64, epoch: Int64? = nil, arrival: Int64? = nil, observations: UnsafeBufferPointer<ObservationRef>,
        into out: inout [EngineOutput]
    ) -> BatchOutcome {
        ingest(gateway: id, seq: seq, sent: EventTime(sent), epoch: epoch, arrival: arrival, into: &out) { engine, gateway, out in
            for sighting in observations { engine.observe(sighting, gateway: gateway, into: &out) }
        }
    }

    /// Books the batch (unknown gateway, duplicate), then lets `feed` observe its sightings.
    private mutating func ingest(
        gateway id: GatewayID, seq: UInt64, sent: EventTime, epoch: Int64?, arrival: Int64?, into out: inout [EngineOutput],
        _ feed: (inout AggregationEngine, Int, inout [EngineOutput]) -> Void
    ) -> BatchOutcome {
        guard let gateway = chain.gatewayIndex[id] else {
            statistics.unknownGatewayBatches += 1
            return .unknownGateway
        }
        let verdict = gateways[gateway].book(seq: seq, sent: sent, epoch: epoch)
        guard verdict != .duplicate else {
            statistics.duplicateBatches += 1
            return .duplicate
        }
        statistics.batches += 1
        guard verdict == .accept else {
            // Apart from the gateway's run: its sightings count, its `sent` and arrival do not.
            feed(&self, gateway, &out)
            return .apart
        }
        gateways[gateway].noteBatch(sent: sent)
        if let arrival {
            clock.noteArrival(arrival)
            gateways[gateway].arrivedAt = max(gateways[gateway].arrivedAt ?? arrival, arrival)
        } else {
            // A replay has no arrival clock: the chain's event time stands in for it.
            var arrived = max(gateways[gateway].arrivedAt ?? sent.milliseconds, sent.milliseconds)
            if let latest = clock.latest { arrived = max(arrived, latest.milliseconds) }
            gateways[gateway].arrivedAt = arrived
        }
        feed(&self, gateway, &out)
        noteEventTime(sent, into: &out)
        decideAwaiting(inStoreOf: gateway, into: &out)
        return .accepted
    }

    /// An explicit gateway status (`online`, or the Last Will's `offline`) at event time `time`.
    ///
    /// A status says whether the edge's connection is up, not what its scanner heard: `online`
    /// only clears an offline status (the gateway counts as alive again with its next batch's
    /// coverage), and a status does not move event time — its time is the edge's "now", which can
    /// be ahead of batches still queued behind it (an edge reconnecting sends `online` first and
    /// its buffered batches after). The next batch, or the service's tick, runs the sweep.
    public mutating func gatewayStatus(_ id: GatewayID, online: Bool, at time: Int64, into out: inout [EngineOutput]) {
        guard let gateway = chain.gatewayIndex[id] else { return }
        gateways[gateway].reportedOffline = !online
    }

    /// Moves event time forward with no traffic (the service's clock when the chain is idle, or the
    /// end of a replay), so that exits still happen.
    public mutating func advance(to time: Int64, arrival: Int64? = nil, into out: inout [EngineOutput]) {
        if let arrival { clock.noteArrival(arrival) }
        noteEventTime(EventTime(time), into: &out)
    }

    /// The live service's sightings connection came back up at `arrival` (its arrival clock).
    public mutating func noteReconnect(arrival: Int64) {
        clock.reconnectedAt = arrival
        clock.noteArrival(arrival)
    }

    /// Lets event time pass to `time` as if every gateway alive now went on sending empty batches
    /// (heartbeats) each second: what the end of a recording would have been followed by had the
    /// chain gone on hearing no one (`replay --drain`). Devices still inside exit by the usual
    /// rules; devices only offline gateways heard stay `unknown`.
    public mutating func drain(to time: Int64, into out: inout [EngineOutput]) {
        guard let latest = clock.latest else { return }
        let end = EventTime(time)
        let silence = Int64(tuning.gatewaySilenceSeconds * 1000)
        let alive = gateways.indices.filter { gateways[$0].isOnline(at: latest, silence: silence) }
        // A heartbeat a second until every device still heard would have exited (the exit timeout
        // and the lateness past the end), then one step to `time`: a day's drain costs a minute's.
        let settled = latest + Int64((tuning.exitTimeoutSeconds + tuning.latenessSeconds) * 1000) + 2000
        var now = latest
        while now < end {
            now = now < settled ? min(now + 1000, end) : end
            for gateway in alive { gateways[gateway].noteHeartbeat(at: now) }
            noteEventTime(now, into: &out)
        }
    }

    /// Event time moved to `time` (if later than anything seen): the watermark follows, and the
    /// sweep runs when it has moved on by ``sweepInterval``.
    mutating func noteEventTime(_ time: EventTime, into out: inout [EngineOutput]) {
        if let latest = clock.latest, time <= latest { return }
        if clock.first == nil { clock.first = time }
        clock.latest = time
        let watermark = time - Int64(tuning.latenessSeconds * 1000)
        if clock.watermark.map({ watermark > $0 }) ?? true { clock.watermark = watermark }
        guard let current = clock.watermark else { return }
        let lastSweep = clock.lastSweep ?? current
        clock.lastSweep = lastSweep
        if current - lastSweep >= Self.sweepInterval {
            sweep(at: current, into: &out)
            clock.lastSweep = current
        }
    }
}
