/// What the engine knows of one gateway's stream: its sequence numbers (``SequenceBook``), what
/// its batches cover in time (``Coverage``), and whether it is alive and hearing anyone.
struct GatewayStream: Sendable {
    /// What the edge's own status topic said last.
    enum Announcement: Sendable {
        /// Nothing since its last batch, or `online`.
        case reporting
        /// `offline` (its Last Will) since its last batch: down, whatever its coverage says.
        case offline
    }

    /// Its batches' sequence numbers.
    private(set) var sequence = SequenceBook()
    /// What its batches cover in time.
    private(set) var coverage = Coverage()
    /// When its last batch arrived, on the live service's arrival clock (wall time while the
    /// aggregator was connected), or, in a replay, on the chain's event time then; nil before any.
    /// A gateway whose batches keep coming is alive even if its own clock (`sent`) lags the
    /// chain's (a clock behind, a slow bridge, a backlog others replayed first); only its coverage
    /// lags with it.
    private(set) var arrivedAt: Int64?
    /// What its status topic said since its last batch.
    private(set) var announcement = Announcement.reporting
    /// The gateway's reception floor: a running estimate of the 1st percentile of the calibrated
    /// RSSI it reports, dBm — below it an advert is usually not heard at all.
    private(set) var floor = -90.0
    /// Event time of the latest sighting it reported, of any device: a gateway that heard no one
    /// lately may be deaf, and its silence about one device then says nothing.
    private(set) var lastHeard: EventTime?

    /// Books a batch's sequence number; an accepted batch sent at `sent` also extends the
    /// gateway's coverage and says it is alive, as of `arrival` (the live arrival clock) or, in a
    /// replay, of `latest` (the chain's event time before this batch).
    mutating func book(seq: UInt64, sent: EventTime, epoch: Int64?, arrival: Int64?, latest: EventTime?) -> SequenceBook.Verdict {
        let verdict = sequence.book(seq: seq, sent: sent, epoch: epoch, coverage: &coverage)
        guard case .accept(let advance) = verdict else { return verdict }
        coverage.noteBatch(sent: sent, advance: advance)
        announcement = .reporting
        if let arrival {
            arrivedAt = max(arrivedAt ?? arrival, arrival)
        } else {
            // A replay has no arrival clock: the chain's event time stands in for it.
            var arrived = max(arrivedAt ?? sent.milliseconds, sent.milliseconds)
            if let latest { arrived = max(arrived, latest.milliseconds) }
            arrivedAt = arrived
        }
        return verdict
    }

    /// Continues the sequence from a previous process's progress (the snapshot).
    mutating func resume(seq: UInt64, sent: EventTime, epoch: Int64?) {
        sequence.resume(seq: seq, sent: sent, epoch: epoch)
    }

    /// An explicit status: `offline` (the Last Will) takes it down until its next batch or `online`.
    mutating func announce(online: Bool) {
        announcement = online ? .reporting : .offline
    }

    /// A heartbeat assumed at `time` (`replay --drain`): the gateway listened up to then.
    mutating func noteHeartbeat(at time: EventTime) { coverage.noteHeartbeat(at: time) }

    /// A sighting it reported, calibrated to `rssi`, at `time`: it hears, and ``floor`` moves
    /// towards the 1st percentile (a stochastic-approximation quantile step).
    @inline(__always)
    mutating func noteSighting(rssi: Double, at time: EventTime) {
        floor += rssi < floor ? -0.99 * 0.2 : 0.01 * 0.2
        if lastHeard.map({ time > $0 }) ?? true { lastHeard = time }
    }

    /// Whether the gateway counts as alive at event time `now` (and `arrival`, the live service's
    /// arrival clock). Silent (neither its clock nor the chain's moved on by a batch of it) for
    /// `silence` (`gateway_silence_s`) or its longest normal gap, whichever is longer, or offline
    /// by its Last Will: down.
    func isOnline(at now: EventTime, arrival: Int64? = nil, silence: EventDuration) -> Bool {
        guard announcement == .reporting, let last = coverage.lastBatch else { return false }
        let bound = max(silence, coverage.longestGap)
        return now - last <= bound || arrivedAt.map { (arrival ?? now.milliseconds) - $0 <= bound.milliseconds } ?? false
    }

    /// Whether its batches were still arriving around event time `time` (its last one no older
    /// than its silence bound then, or later); false for a gateway never heard from.
    func wasReporting(at time: EventTime, silence: EventDuration) -> Bool {
        guard let last = coverage.lastBatch else { return false }
        return last >= time - max(silence, coverage.longestGap)
    }
}
