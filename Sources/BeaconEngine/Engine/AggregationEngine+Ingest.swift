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

    /// Books the batch on its gateway, lets `feed` observe its sightings, then moves event time
    /// and makes the decisions the gateway's report completed.
    private mutating func ingest(
        gateway id: GatewayID, seq: UInt64, sent: EventTime, epoch: Int64?, arrival: Int64?, into out: inout [EngineOutput],
        _ feed: (inout AggregationEngine, Int, inout [EngineOutput]) -> Void
    ) -> BatchOutcome {
        guard let gateway = chain.gatewayIndex[id] else {
            statistics.unknownGatewayBatches += 1
            return .unknownGateway
        }
        switch gateways.book(gateway, seq: seq, sent: sent, epoch: epoch, arrival: arrival, latest: clock.latest) {
        case .duplicate:
            statistics.duplicateBatches += 1
            return .duplicate
        case .apart:
            // Apart from the gateway's run: its sightings count, its `sent` and arrival do not.
            statistics.batches += 1
            feed(&self, gateway, &out)
            return .apart
        case .accept:
            statistics.batches += 1
            if let arrival { clock.noteArrival(arrival) }
            feed(&self, gateway, &out)
            noteEventTime(sent, into: &out)
            decideAwaiting(inStoreOf: gateway, into: &out)
            return .accepted
        }
    }

    /// One sighting: the device's link to `gateway` is filtered, then the device is placed.
    mutating func observe(_ sighting: ObservationRef, gateway: Int, into out: inout [EngineOutput]) {
        statistics.sightings += 1
        let time = EventTime(sighting.time)
        if let watermark = clock.watermark, time < watermark { statistics.lateSightings += 1 }
        let track = devices.track(of: sighting.device) ?? newTrack(DeviceID(validatedUTF8: sighting.device), seen: time)
        let rssi = Double(sighting.rssi) + gatewayIndex.calibration[gateway]
        gateways.noteSighting(gateway, rssi: rssi, at: time)
        presence.noteSighting(track, at: time)
        links.hear(
            track, gateway: Int32(gateway), section: gatewayIndex.section[gateway], store: gatewayIndex.store[gateway], rssi: rssi,
            power: sighting.measuredPower.map(Double.init) ?? tuning.defaultMeasuredPower, at: time)
        place(track, heardBy: gateway, at: time, into: &out)
    }

    /// What a sighting by `gateway` at `time` starts: the evidence for entering a store (or another
    /// store it may have moved to), a return from `unknown`, or — in its own store — a section
    /// decision and the street test. The decisions themselves wait until every live gateway of
    /// the store has reported up to the sighting (AggregationEngine+Decisions.swift).
    mutating func place(_ track: Int, heardBy gateway: Int, at time: EventTime, into out: inout [EngineOutput]) {
        let store = Int(gatewayIndex.store[gateway])
        // Decisions run on the device's own clock, which never goes back: reports from different
        // gateways interleave, and an older one must not date a decision before an earlier one.
        let now = presence[track].lastSeen
        let current = presence[track].presence
        guard let visit = current.visit else {
            // A sighting from before the exit (a gateway's backlog arriving late) is history, not
            // evidence of a return: it would re-enter the device behind its own exit.
            if let since = current.since, time <= since { return }
            if let exit = street.devices[track].exit, exit.store == store, now - exit.time < Street.reentryGuard {
                // Seen walking away from this store a moment ago: back in only once it no longer
                // looks like the street.
                _ = streetStep(track, store: store, at: now)
                guard street.devices[track].probability < Street.reentryProbability else { return }
            }
            gatherEntryEvidence(track, store: store, at: now)
            return
        }
        guard store == visit.store else {
            gatherEntryEvidence(track, store: store, at: now)
            return
        }
        if presence.heardInOwnStore(track, store: store, at: time, now: now) {
            // A gateway hears it again: it never left. No enter event, only the state.
            emitState(track, at: now, into: &out)
        }
    }

    /// Counts a sighting towards entering `store` (``StorePresence/gatherEntryEvidence(_:store:at:rules:levels:ownStoreQuiet:)``):
    /// a device inside another store moves only once that store has gone quiet about it
    /// (`stale_after_s`), or once this store's strongest link has led its own store's by more
    /// than `switch_margin_db` for long enough: a device walking out into a neighbour's floor is
    /// still heard through the wall.
    private mutating func gatherEntryEvidence(_ track: Int, store: Int, at time: EventTime) {
        let device = presence[track]
        if let entry = device.entry, entry.store == store, entry.readyAt != nil { return }
        var levels: (there: Double?, here: Double?)?
        var quiet = true
        if let own = device.presence.visit?.store {
            levels = (links.strongestFreshLevel(track, in: store, at: time), links.strongestFreshLevel(track, in: own, at: time))
            quiet = device.lastSeenInStore.map { time - $0 >= links.stale } ?? true
        }
        presence.gatherEntryEvidence(track, store: store, at: time, rules: EntryRules(tuning: tuning), levels: levels, ownStoreQuiet: quiet)
    }

    /// An explicit gateway status (`online`, or the Last Will's `offline`).
    ///
    /// A status says whether the edge's connection is up, not what its scanner heard: `online`
    /// only clears an offline status (the gateway counts as alive again with its next batch's
    /// coverage), and a status does not move event time — its time is the edge's "now", which can
    /// be ahead of batches still queued behind it (an edge reconnecting sends `online` first and
    /// its buffered batches after). The next batch, or the service's tick, runs the sweep.
    public mutating func gatewayStatus(_ id: GatewayID, online: Bool) {
        guard let gateway = chain.gatewayIndex[id] else { return }
        gateways.announce(gateway, online: online)
    }

    /// Moves event time forward with no traffic (the service's clock when the chain is idle, or the
    /// end of a replay), so that exits still happen.
    public mutating func advance(to time: Int64, arrival: Int64? = nil, into out: inout [EngineOutput]) {
        if let arrival { clock.noteArrival(arrival) }
        noteEventTime(EventTime(time), into: &out)
    }

    /// The live service's sightings connection came back up at `arrival` (its arrival clock).
    public mutating func noteReconnect(arrival: Int64) { clock.noteReconnect(arrival: arrival) }

    /// Lets event time pass to `time` as if every gateway alive now went on sending empty batches
    /// (heartbeats) each second: what the end of a recording would have been followed by had the
    /// chain gone on hearing no one (`replay --drain`). Devices still inside exit by the usual
    /// rules; devices only offline gateways heard stay `unknown`.
    public mutating func drain(to time: Int64, into out: inout [EngineOutput]) {
        guard let latest = clock.latest else { return }
        let end = EventTime(time)
        let alive = gateways.online(at: latest)
        // A heartbeat a second until every device still heard would have exited (the exit timeout
        // and the lateness past the end), then one step to `time`: a day's drain costs a minute's.
        let second = EventDuration(milliseconds: 1000)
        let settled = latest + .seconds(tuning.exitTimeoutSeconds + tuning.latenessSeconds) + 2 * second
        var now = latest
        while now < end {
            now = now < settled ? min(now + second, end) : end
            gateways.noteHeartbeats(alive, at: now)
            noteEventTime(now, into: &out)
        }
    }

    /// Event time moved to `time` (if later than anything seen): the watermark follows, and the
    /// sweep runs when it has moved on by ``EngineClock/sweepInterval``.
    mutating func noteEventTime(_ time: EventTime, into out: inout [EngineOutput]) {
        guard let watermark = clock.advance(to: time, lateness: tuning.lateness) else { return }
        sweep(at: watermark, into: &out)
    }
}
