extension AggregationEngine {
    /// How long after the live service's connection comes back every gateway known before is
    /// awaited (arrival clock, ms): a backlog of minutes replays in seconds, and edges reconnect
    /// within 10 s of the broker's return (their back-off), more in a connection storm.
    static let replayWindow: Int64 = 60_000

    /// Time-driven decisions at the watermark: exits for silence, `unknown` when the gateways
    /// that could hear a device are offline, challengers the section rule is watching, occupancy,
    /// forgetting.
    mutating func sweep(at watermark: EventTime, into out: inout [EngineOutput]) {
        let listening = listening(at: watermark)
        let heardTo = storesHeardTo(listening)
        // Decisions still awaiting a gateway that lags the watermark are made now.
        for store in awaiting.indices where !awaiting[store].isEmpty {
            let horizon = self.heardTo(store: store, listening, forDecisions: true) ?? watermark
            decideAwaiting(store: store, upTo: max(horizon, watermark), into: &out)
        }
        let timeout = Int64(tuning.exitTimeoutSeconds * 1000)
        for track in tracks.indices {
            guard let store = tracks[track].store, tracks[track].isInStore else {
                if let lastSeen = tracks[track].lastSeen, watermark - lastSeen > Self.forgetAfter { forget(track) }
                continue
            }
            let threshold = exitThreshold(track)
            switch silenceEvidence(track, listening, heardTo: heardTo[store], threshold: threshold) {
            case .listening(let quiet, let since):
                if quiet > threshold {
                    exitStore(track, at: exitTime(track, at: watermark, since: since, threshold: threshold, overdue: quiet - threshold), into: &out)
                } else if sectionRule.isWatching(track: track) {
                    decideSection(track, at: watermark, into: &out)
                }
            case .deaf(let quiet, let since):
                // The gateways that could hear it are down: nobody can tell where it is...
                if let quiet, quiet > timeout {
                    // ...but the rest of the store has listened for the whole exit timeout
                    // and heard nothing: it has left.
                    exitStore(track, at: exitTime(track, at: watermark, since: since, threshold: timeout, overdue: quiet - timeout), into: &out)
                } else if tracks[track].state == .inside {
                    tracks[track].state = .unknown
                    tracks[track].stateSince = max(watermark, tracks[track].lastSeen ?? watermark)
                    emitState(track, at: tracks[track].stateSince, into: &out)
                }
            }
        }
        if occupancy.lastFlush.map({ watermark - $0 >= Self.occupancyInterval }) ?? true {
            flushOccupancy(at: watermark, into: &out)
            occupancy.lastFlush = watermark
        }
    }

    /// Who is listening at `watermark`. Live, a start is measured on the arrival clock (a backlog
    /// replays minutes of event time in seconds); in a replay, on event time.
    func listening(at watermark: EventTime) -> Listening {
        let firstEvent = clock.first ?? watermark
        let phase: Listening.Phase
        if let arrival = clock.arrival {
            if arrival.now - arrival.first <= Self.replayWindow {
                phase = .starting
            } else if let reconnected = clock.reconnectedAt, arrival.now - reconnected <= Self.replayWindow {
                phase = .reconnected
            } else {
                phase = .steady
            }
        } else {
            phase = watermark - firstEvent <= GatewayTrack.maxInterval ? .starting : .steady
        }
        return Listening(
            watermark: watermark, arrival: clock.arrival?.now, silence: Int64(tuning.gatewaySilenceSeconds * 1000),
            firstEvent: firstEvent, phase: phase)
    }

    /// Per store, up to when all its live gateways have reported (the earliest last batch); nil:
    /// no bound. A device's silence is evidence only up to there — a gateway with a long window or
    /// a clock behind may yet report it, whichever gateway heard it last. In the first minute
    /// after start a gateway not heard yet may be one with a long window still filling its first:
    /// it holds the store's silences at the start until it reports.
    func storesHeardTo(_ listening: Listening) -> [EventTime?] {
        chain.stores.indices.map { heardTo(store: $0, listening) }
    }

    /// The same for one store. For decisions (`forDecisions`), a gateway not heard from yet in the
    /// first minute after the start has reported nothing the store's evidence could include: the
    /// store has then no horizon but the watermark (nil), where a silence is held at the start.
    func heardTo(store: Int, _ listening: Listening, forDecisions: Bool = false) -> EventTime? {
        var heardTo: EventTime?
        func bound(_ time: EventTime) { heardTo = min(heardTo ?? time, time) }
        for gateway in chain.stores[store].gateways {
            let track = gateways[gateway]
            if isAlive(gateway, listening), let covered = track.coveredTo(at: listening.watermark) {
                // A gateway whose reports lag the chain beyond its usual gap (a clock far
                // behind) holds only the devices it heard itself (see silenceEvidence) —
                // unless a replay after a reconnection is under way: it may be catching up.
                if listening.awaitsBacklogs || listening.watermark - covered <= max(listening.silence, track.longestGap) {
                    bound(covered)
                }
            } else if listening.starting && track.lastBatch == nil {
                if forDecisions { return nil }
                // Resumed from a snapshot, it has reported up to its last batch before the
                // restart, which a broker outage may put well before this run's first event.
                bound(min(listening.firstEvent, track.current?.newestSent ?? listening.firstEvent))
            }
        }
        return heardTo
    }

    /// Alive: online by its batches or their arrival, or awaited while a replay after a
    /// reconnection is under way — if it was alive when the connection went (the arrival clock
    /// stood still since) or has delivered since, and no Last Will said otherwise. A gateway dead
    /// before the outage is not awaited, so a connection that keeps flapping cannot hold exits.
    @inline(__always)
    func isAlive(_ gateway: Int, _ listening: Listening) -> Bool {
        let track = gateways[gateway]
        if track.isOnline(at: listening.watermark, arrival: listening.arrival, silence: listening.silence) { return true }
        guard listening.awaitsBacklogs, !track.reportedOffline, track.lastBatch != nil, let arrivedAt = track.arrivedAt else { return false }
        guard let reconnected = clock.reconnectedAt else { return true }
        return arrivedAt >= reconnected || reconnected - arrivedAt <= max(listening.silence, track.longestGap)
    }

    /// Publishes the occupancy counts that changed, stamped no earlier than the transition that
    /// changed them (the watermark lags event time).
    mutating func flushOccupancy(at watermark: EventTime, into out: inout [EngineOutput]) {
        let time = max(watermark, occupancy.changedAt ?? watermark).milliseconds
        for store in occupancy.dirtyStores.sorted() {
            out.append(.occupancy(OccupancyCount(store: store, section: nil, count: occupancy.stores[store], time: time)))
        }
        for section in occupancy.dirtySections.sorted() {
            out.append(.occupancy(OccupancyCount(
                store: chain.sections[section].store, section: section, count: occupancy.sections[section], time: time)))
        }
        occupancy.dirtyStores.removeAll(keepingCapacity: true)
        occupancy.dirtySections.removeAll(keepingCapacity: true)
    }
}
