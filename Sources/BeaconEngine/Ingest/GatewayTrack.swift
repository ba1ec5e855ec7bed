/// What the engine knows of one gateway's stream: its sequence numbers (duplicates, loss; see
/// GatewayTrack+Sequence.swift) and what its batches cover in time (liveness, silences).
///
/// An edge counts its batches from 0 when it starts (unless its spill file continues an older
/// run's count) and names that run in its batches' `epoch`. A batch of another epoch than the
/// current and the previous run's is a restart: the window starts again there, nothing counted as
/// lost (no ordering of epochs is assumed, so a gateway clock that jumps back does no harm). Batches
/// without an epoch (older edges, recordings) fall back to a guess: a lower `seq` with a `sent`
/// clearly after everything seen is a restart. Inside one run, a `seq` 64 or more away from the
/// window (a forged or corrupted batch, an edge that dropped part of its outage buffer) does not
/// move it: it starts a ``Contender``, and whichever of the two streams goes on wins.
struct GatewayTrack: Sendable {
    /// A stretch of time the gateway's batches covered without a break.
    struct Run: Sendable, Equatable {
        /// Its first batch.
        var since: EventTime
        /// Its last batch.
        var last: EventTime
    }

    /// Batches skipped by the sequence and not arrived yet: until ``until``, what the gateway
    /// reported on stops at ``from`` — a batch swapped on the way, or lost, may have carried a device.
    struct Hole: Sendable {
        /// How many are missing.
        var missing: UInt64
        /// `sent` of the batch before the hole.
        var from: EventTime
        /// When the wait for the missing batches ends.
        var until: EventTime
    }

    /// The current run of sequence numbers; nil before the first batch.
    var current: Window?
    /// The run before the current one, so that its late or repeated batches are recognised.
    var previous: Window?
    /// A stream of the current run's `seq`s that jumped 64 or more away from ``current``, kept
    /// apart until it shows whether it goes on (see GatewayTrack+Contender.swift); nil when none.
    var contender: Contender?
    /// Batches received.
    var received: UInt64 = 0
    /// Batches missing from the sequence (gaps), net of those that arrived late.
    var lost: UInt64 = 0
    /// Batches ignored as duplicates.
    var duplicates: UInt64 = 0
    /// Sequence anomalies: batches whose `seq` jumped 64 or more away from their run without the
    /// jump turning out to be batches the edge dropped, runs (`epoch`s) that came and went while
    /// the one before went on, and batches with a `seq` already seen but another `sent`.
    var seqAnomalies: UInt64 = 0
    /// Times the gateway's sequence restarted (an edge restart).
    var restarts: UInt64 = 0
    /// Batches missing between the progress restored at start (the snapshot) and the first batch
    /// after it: processed by the previous process after its last snapshot, or lost when it stopped.
    var restartGap: UInt64 = 0
    /// Progress was restored and no newer batch has arrived yet: the next gap is a restart gap.
    var gapIsRestart = false
    /// The batches' coverage since the first batch in this process, or the first after a gap
    /// longer than three of its batch windows (it stopped producing them: an edge restart, a
    /// stall); nil before any batch. A batch, even an empty heartbeat, says the gateway listened up
    /// to its `sent`: its silence about a device is evidence from ``Run/since`` up to ``Run/last``,
    /// not beyond. A lost heartbeat or two, or an outage whose batches the edge kept and sent
    /// later, is no break.
    var coverage: Run?
    /// The run of coverage before its last break, up to its last batch (or the batch before a hole,
    /// if one was open); nil before any break. A silence it held whole stays evidence: an edge that
    /// crashes during a broker outage, after a device had already been silent long enough, must not
    /// restart that silence at its return.
    var brokenRun: Run?
    /// Where a hole still open when a restart ended its run began (``restart(seq:sent:epoch:)``
    /// clears the hole): that run covered only up to there. For the next ``noteBatch(sent:)``.
    var restartHoleFrom: EventTime?
    /// The gateway's batch window as its batches show it, ms (0 until two consecutive batches
    /// arrived): the longest recent `sent` step between consecutive `seq`s, decaying by an eighth
    /// per step. An edge configured with a long window (`batch_window_ms`) is silent that long
    /// between heartbeats.
    var interval: Int64 = 0
    /// How many `seq`s the last booked batch advanced its run by (0: it did not, e.g. a late one).
    var advance: UInt64 = 0
    /// A new edge run began: its window is learnt afresh from its next step.
    var relearn = false
    /// When its last batch arrived, on the live service's arrival clock (wall time while the
    /// aggregator was connected), or, in a replay, on the chain's event time then; nil before any.
    /// A gateway whose batches keep coming is alive even if its own clock (`sent`) lags the
    /// chain's (a clock behind, a slow bridge, a backlog others replayed first); only its coverage
    /// lags with it.
    var arrivedAt: Int64?
    /// The open hole in the sequence, if any.
    var hole: Hole?
    /// Set by an explicit offline status (the edge's Last Will); cleared by any batch or online status.
    var reportedOffline = false
    /// The gateway's reception floor: a running estimate of the 1st percentile of the calibrated
    /// RSSI it reports, dBm — below it an advert is usually not heard at all.
    var floor = -90.0
    /// Event time of the latest sighting it reported, of any device: a gateway that heard no one
    /// lately may be deaf, and its silence about one device then says nothing.
    var lastHeard: EventTime?

    /// The longest batch window an edge accepts (`batch_window_ms` ≤ 60 000), ms.
    static let maxInterval: Int64 = 60_000
    /// How long a hole in the sequence holds the gateway's coverage back, ms.
    static let holeWait: Int64 = 5_000

    /// Event time of the last batch (its `sent`); nil before the first.
    var lastBatch: EventTime? { coverage?.last }

    /// Moves ``floor`` towards the 1st percentile (a stochastic-approximation quantile step).
    @inline(__always)
    mutating func noteRSSI(_ rssi: Double) {
        floor += rssi < floor ? -0.99 * 0.2 : 0.01 * 0.2
    }

    /// Whether the gateway counts as alive at event time `now` (and `arrival`, the live service's
    /// arrival clock). Silent (neither its clock nor the chain's moved on by a batch of it) for
    /// `silence` (`gateway_silence_s`) or ``longestGap``, whichever is longer, or offline by its
    /// Last Will: down.
    func isOnline(at now: EventTime, arrival: Int64? = nil, silence: Int64) -> Bool {
        guard !reportedOffline, let last = coverage?.last else { return false }
        let bound = max(silence, longestGap)
        return now - last <= bound || arrivedAt.map { (arrival ?? now.milliseconds) - $0 <= bound } ?? false
    }

    /// Whether its batches were still arriving around event time `time` (its last one no older
    /// than its silence bound then, or later); false for a gateway never heard from.
    func wasReporting(at time: EventTime, silence: Int64) -> Bool {
        guard let last = coverage?.last else { return false }
        return last >= time - max(silence, longestGap)
    }

    /// Up to when, at event time `watermark`, the gateway has reported everything it heard: its
    /// last batch, or, while batches before it are missing (swapped on the way, or lost — given up
    /// after ``holeWait``), the batch before the hole. Nil before any batch.
    func coveredTo(at watermark: EventTime) -> EventTime? {
        if let hole, watermark <= hole.until { return hole.from }
        return coverage?.last
    }

    /// The longest normal silence between its batches: three windows, or, before a second batch
    /// has shown its window, the longest window an edge accepts (so a gateway with a long window
    /// is not taken for dead during its first one).
    var longestGap: Int64 { interval > 0 ? 3 * interval : Self.maxInterval }

    /// Where its silence about a device last heard at `lastSeen` counts from: its return
    /// (``Run/since``) — unless the run before its last break alone held a whole silence longer
    /// than `threshold` after `lastSeen`: then from that run's start, up to its end (`until`). A
    /// break after the silence was already long enough says nothing about the device.
    func silenceStart(after lastSeen: EventTime, since aliveSince: EventTime, threshold: Int64) -> (from: EventTime, until: EventTime?) {
        if aliveSince > lastSeen, let broken = brokenRun, broken.last - max(lastSeen, broken.since) > threshold {
            return (max(lastSeen, broken.since), broken.last)
        }
        return (max(lastSeen, aliveSince), nil)
    }

    /// A heartbeat assumed at `time` (`replay --drain`): the gateway listened up to then.
    mutating func noteHeartbeat(at time: EventTime) {
        guard var run = coverage else { return }
        run.last = max(run.last, time)
        coverage = run
    }

    /// Books an accepted batch sent at `sent` (call after ``book(seq:sent:epoch:)``).
    mutating func noteBatch(sent: EventTime) {
        guard var run = coverage else {
            coverage = Run(since: sent, last: sent)
            advance = 0
            reportedOffline = false
            return
        }
        let step = sent - run.last
        // Judged against the window known before this step, which may itself be the gap. Two
        // windows lost or swapped on the way are no break; more are a hole in what it reported.
        if step > 3 * max(interval, 1000), sent > run.since {
            // The run before the break covered up to its last batch, or the batch before a hole
            // still open (one whose wait is over was a loss; it no longer cuts the run).
            var end = run.last
            if let hole, sent <= hole.until { end = min(end, hole.from) }
            if let restartHoleFrom { end = min(end, restartHoleFrom) }
            brokenRun = Run(since: run.since, last: end)
            run.since = sent
        }
        restartHoleFrom = nil
        // A step over batches lost or reordered on the way counts as that many windows.
        let windows = Int64(clamping: max(advance, 1))
        if relearn {
            interval = 0
            relearn = false
        } else if advance > 0, step > 0 {
            // A slowly decaying maximum of the step per `seq`: a window sealed early (over 3 000
            // sightings, the rest in a second batch) makes a short step that must not shrink the
            // window much; no edge window is longer than a minute.
            interval = min(Self.maxInterval, max(step / windows, interval - interval / 8))
        }
        advance = 0
        reportedOffline = false
        run.last = max(run.last, sent)
        coverage = run
    }
}
