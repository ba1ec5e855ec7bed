import BeaconCore

/// Every gateway's stream, by index in ``Chain/gateways``: the engine books batches, statuses and
/// sightings here, and asks who is alive, who hears, and up to when a store's gateways have
/// reported.
struct GatewayBook: Sendable {
    /// Per gateway.
    private(set) var streams: [GatewayStream]
    /// `gateway_silence_s`: a gateway that sent no batch for this long counts as offline.
    let silence: EventDuration

    init(gateways: Int, silence: EventDuration) {
        streams = Array(repeating: GatewayStream(), count: gateways)
        self.silence = silence
    }

    /// One gateway's stream.
    subscript(gateway: Int) -> GatewayStream { streams[gateway] }

    /// Books a batch of `gateway` (see ``GatewayStream/book(seq:sent:epoch:arrival:latest:)``).
    mutating func book(_ gateway: Int, seq: UInt64, sent: EventTime, epoch: Int64?, arrival: Int64?, latest: EventTime?) -> SequenceBook.Verdict {
        streams[gateway].book(seq: seq, sent: sent, epoch: epoch, arrival: arrival, latest: latest)
    }

    /// An explicit status of `gateway`.
    mutating func announce(_ gateway: Int, online: Bool) { streams[gateway].announce(online: online) }

    /// `gateway` reported a sighting, calibrated to `rssi`, at `time`.
    @inline(__always)
    mutating func noteSighting(_ gateway: Int, rssi: Double, at time: EventTime) { streams[gateway].noteSighting(rssi: rssi, at: time) }

    /// Continues `gateway`'s sequence from a previous process's progress.
    mutating func resume(_ gateway: Int, seq: UInt64, sent: EventTime, epoch: Int64?) {
        streams[gateway].resume(seq: seq, sent: sent, epoch: epoch)
    }

    /// The gateways online at `time`, by their batches alone.
    func online(at time: EventTime) -> [Int] {
        streams.indices.filter { streams[$0].isOnline(at: time, silence: silence) }
    }

    /// Heartbeats assumed at `time` from `gateways` (`replay --drain`).
    mutating func noteHeartbeats(_ gateways: [Int], at time: EventTime) {
        for gateway in gateways { streams[gateway].noteHeartbeat(at: time) }
    }

    /// True when `gateway` reported someone within `gateway_silence_s` of `time`: only then does
    /// its not hearing a device count as evidence (a deaf receiver, still sending its heartbeats,
    /// must not push devices out of its section or out of the store).
    func hearsLately(_ gateway: Int, at time: EventTime) -> Bool {
        guard let last = streams[gateway].lastHeard else { return false }
        return time - last <= silence
    }

    /// Whether `gateway` heard a device at `heard` lately for a device last seen in its store at
    /// `lastSeen`: within `stale` (`stale_after_s`), or two of the gateway's batch windows (two
    /// minutes before its window is known).
    @inline(__always)
    func heardRecently(_ gateway: Int, at heard: EventTime, lastSeen: EventTime, stale: EventDuration) -> Bool {
        let interval = streams[gateway].coverage.interval ?? Coverage.maxInterval
        return heard >= lastSeen - max(stale, 2 * interval)
    }

    /// Alive: online by its batches or their arrival, or awaited while a replay after a
    /// reconnection is under way — if it was alive when the connection went (the arrival clock
    /// stood still since) or has delivered since, and no Last Will said otherwise. A gateway dead
    /// before the outage is not awaited, so a connection that keeps flapping cannot hold exits.
    @inline(__always)
    func isAlive(_ gateway: Int, _ listening: Listening) -> Bool {
        let stream = streams[gateway]
        if stream.isOnline(at: listening.watermark, arrival: listening.arrival, silence: listening.silence) { return true }
        guard listening.awaitsBacklogs, stream.announcement == .reporting, stream.coverage.lastBatch != nil,
              let arrivedAt = stream.arrivedAt else { return false }
        guard let reconnected = listening.reconnectedAt else { return true }
        return arrivedAt >= reconnected || reconnected - arrivedAt <= max(listening.silence, stream.coverage.longestGap).milliseconds
    }

    /// Up to when all the live gateways among `gateways` (a store's) have reported (the earliest
    /// last batch); nil: no bound. A device's silence is evidence only up to there — a gateway with
    /// a long window or a clock behind may yet report it, whichever gateway heard it last. In the
    /// first minute after start a gateway not heard yet may be one with a long window still
    /// filling its first: it holds the store's silences at the start until it reports. For
    /// decisions (`forDecisions`), such a gateway has reported nothing the store's evidence could
    /// include: the store has then no horizon but the watermark (nil).
    func heardTo(_ gateways: [Int], _ listening: Listening, forDecisions: Bool = false) -> EventTime? {
        var heardTo: EventTime?
        func bound(_ time: EventTime) { heardTo = min(heardTo ?? time, time) }
        for gateway in gateways {
            let stream = streams[gateway]
            if isAlive(gateway, listening), let covered = stream.coverage.coveredTo(at: listening.watermark) {
                // A gateway whose reports lag the chain beyond its usual gap (a clock far
                // behind) holds only the devices it heard itself (see the store's silence
                // evidence) — unless a replay after a reconnection is under way: it may be catching up.
                if listening.awaitsBacklogs || listening.watermark - covered <= max(listening.silence, stream.coverage.longestGap) {
                    bound(covered)
                }
            } else if listening.starting && stream.coverage.lastBatch == nil {
                if forDecisions { return nil }
                // Resumed from a snapshot, it has reported up to its last batch before the
                // restart, which a broker outage may put well before this run's first event.
                bound(min(listening.firstEvent, stream.sequence.current?.newestSent ?? listening.firstEvent))
            }
        }
        return heardTo
    }

    /// Loss, duplicates, sequence anomalies and restart gaps per gateway (`ids` in the book's
    /// order), for the status topic; online as of `watermark` and `arrival`.
    func counters(ids: [GatewayID], watermark: EventTime?, arrival: Int64?) -> [GatewayCounters] {
        ids.indices.map { gateway in
            let stream = streams[gateway]
            let counts = stream.sequence.counters
            let online = watermark.map { stream.isOnline(at: $0, arrival: arrival, silence: silence) } ?? false
            return GatewayCounters(
                id: ids[gateway], received: counts.received, lost: counts.lost, restartGap: counts.restartGap,
                duplicates: counts.duplicates, seqAnomalies: counts.seqAnomalies, online: online,
                lastBatch: stream.coverage.lastBatch?.milliseconds)
        }
    }

    /// The highest batch processed per gateway (`ids` in the book's order), for the snapshot
    /// file; gateways never heard are left out.
    func progress(ids: [GatewayID]) -> [GatewayResumePoint] {
        ids.indices.compactMap { gateway in
            streams[gateway].sequence.current.map {
                GatewayResumePoint(id: ids[gateway], seq: $0.highest, sent: $0.newestSent.milliseconds, epoch: $0.epoch)
            }
        }
    }
}
