/// What one gateway's batches say it listened to, in event time: a batch, even an empty heartbeat,
/// says the gateway listened up to its `sent`, so its silence about a device is evidence from its
/// run's start up to its last batch — not beyond, and not across a hole in its sequence while the
/// missing batches may still come.
struct Coverage: Sendable {
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

    /// A new edge run began with the batch being booked (``noteRestart(sent:)``): its window is
    /// learnt afresh, and the run before it covered only up to a hole still open then.
    struct Restart: Sendable {
        /// Where that hole began, if one was open.
        var holeFrom: EventTime?
    }

    /// The batches' coverage since the first batch in this process, or the first after a gap
    /// longer than three of its batch windows (it stopped producing them: an edge restart, a
    /// stall); nil before any batch. A lost heartbeat or two, or an outage whose batches the edge
    /// kept and sent later, is no break.
    private(set) var run: Run?
    /// The run before its last break, up to its last batch (or the batch before a hole, if one
    /// was open); nil before any break. A silence it held whole stays evidence: an edge that
    /// crashes during a broker outage, after a device had already been silent long enough, must not
    /// restart that silence at its return.
    private(set) var brokenRun: Run?
    /// The open hole in the sequence, if any.
    private(set) var hole: Hole?
    /// The gateway's batch window as its batches show it (nil until two consecutive batches
    /// arrived): the longest recent `sent` step between consecutive `seq`s, decaying by an eighth
    /// per step. An edge configured with a long window (`batch_window_ms`) is silent that long
    /// between heartbeats.
    private(set) var interval: EventDuration?
    /// Set by the booking of a batch that restarted the edge's run, for that batch's ``noteBatch(sent:advance:)``.
    private var restart: Restart?

    /// The longest batch window an edge accepts (`batch_window_ms` ≤ 60 000).
    static let maxInterval = EventDuration(milliseconds: 60_000)
    /// How long a hole in the sequence holds the gateway's coverage back.
    static let holeWait = EventDuration(milliseconds: 5_000)

    /// Event time of the last batch (its `sent`); nil before the first.
    var lastBatch: EventTime? { run?.last }

    /// Up to when, at event time `watermark`, the gateway has reported everything it heard: its
    /// last batch, or, while batches before it are missing (swapped on the way, or lost — given up
    /// after ``holeWait``), the batch before the hole. Nil before any batch.
    func coveredTo(at watermark: EventTime) -> EventTime? {
        if let hole, watermark <= hole.until { return hole.from }
        return run?.last
    }

    /// The longest normal silence between its batches: three windows, or, before a second batch
    /// has shown its window, the longest window an edge accepts (so a gateway with a long window
    /// is not taken for dead during its first one).
    var longestGap: EventDuration { interval.map { 3 * $0 } ?? Self.maxInterval }

    /// Where its silence about a device last heard at `lastSeen` counts from: its return
    /// (``Run/since``) — unless the run before its last break alone held a whole silence longer
    /// than `threshold` after `lastSeen`: then from that run's start, up to its end (`until`). A
    /// break after the silence was already long enough says nothing about the device.
    func silenceStart(after lastSeen: EventTime, since aliveSince: EventTime, threshold: EventDuration) -> (from: EventTime, until: EventTime?) {
        if aliveSince > lastSeen, let broken = brokenRun, broken.last - max(lastSeen, broken.since) > threshold {
            return (max(lastSeen, broken.since), broken.last)
        }
        return (max(lastSeen, aliveSince), nil)
    }

    /// A heartbeat assumed at `time` (`replay --drain`): the gateway listened up to then.
    mutating func noteHeartbeat(at time: EventTime) {
        guard var current = run else { return }
        current.last = max(current.last, time)
        run = current
    }

    /// `skipped` batches are missing after the one sent at `from`: wait ``holeWait`` for them
    /// (reordering on the way is far quicker; a batch lost is lost). A hole whose wait is over
    /// closes, and this one starts afresh.
    mutating func openHole(skipping skipped: UInt64, after from: EventTime, sent: EventTime) {
        var open = hole.flatMap { sent > $0.until ? nil : $0 } ?? Hole(missing: 0, from: from, until: sent + Self.holeWait)
        open.missing = SequenceCounters.saturatingSum(open.missing, skipped)
        hole = open
    }

    /// A missing batch arrived late.
    mutating func fillHole() {
        guard var open = hole else { return }
        open.missing -= 1
        hole = open.missing > 0 ? open : nil
    }

    /// The batch being booked, sent at `sent`, starts a new edge run: a hole still open ends the
    /// run before it there, and the sequence has nothing more to wait for.
    mutating func noteRestart(sent: EventTime) {
        restart = Restart(holeFrom: hole.flatMap { sent <= $0.until ? $0.from : nil })
        hole = nil
    }

    /// Books an accepted batch sent at `sent` that moved the run's sequence on by `advance`
    /// `seq`s (0: it did not, a late one).
    mutating func noteBatch(sent: EventTime, advance: UInt64) {
        guard var current = run else {
            // A restart booked before the first batch of this process (after a resumed snapshot)
            // still holds for the next step: it spans the restart.
            run = Run(since: sent, last: sent)
            return
        }
        let step = sent - current.last
        // Judged against the window known before this step, which may itself be the gap. Two
        // windows lost or swapped on the way are no break; more are a hole in what it reported.
        if step > 3 * max(interval ?? .zero, EventDuration(milliseconds: 1000)), sent > current.since {
            // The run before the break covered up to its last batch, or the batch before a hole
            // still open (one whose wait is over was a loss; it no longer cuts the run).
            var end = current.last
            if let hole, sent <= hole.until { end = min(end, hole.from) }
            if let holeFrom = restart?.holeFrom { end = min(end, holeFrom) }
            brokenRun = Run(since: current.since, last: end)
            current.since = sent
        }
        learnInterval(step: step, advance: advance)
        restart = nil
        current.last = max(current.last, sent)
        run = current
    }

    /// A new edge run's window is learnt afresh from its next step. Otherwise a slowly decaying
    /// maximum of the step per `seq`: a window sealed early (over 3 000 sightings, the rest in a
    /// second batch) makes a short step that must not shrink the window much; no edge window is
    /// longer than a minute. A step over batches lost or reordered on the way counts as that many windows.
    private mutating func learnInterval(step: EventDuration, advance: UInt64) {
        if restart != nil {
            interval = nil
        } else if advance > 0, step > .zero {
            let known = interval ?? .zero
            let perWindow = step / Int64(clamping: max(advance, 1))
            let learnt = min(Self.maxInterval, max(perWindow, known - known / 8))
            interval = learnt > .zero ? learnt : nil
        }
    }
}
