/// What the engine knows of one gateway's stream: sequence numbers (duplicates, loss), liveness.
///
/// An edge counts its batches from 0 when it starts (unless its spill file continues an older
/// run's count) and, since the `epoch` field, names that run. A batch of another epoch than the
/// current and the previous run's is a restart: the window starts again there, nothing counted as
/// lost (no ordering of epochs is assumed, so a gateway clock that jumps back does no harm). Batches without an
/// epoch (older edges, recordings) fall back to a guess: a lower `seq` with a `sent` clearly after
/// everything seen is a restart.
struct GatewayTrack: Sendable {
    /// One run's sequence numbers: the highest seen and which of the 64 below it arrived.
    struct Window: Sendable {
        /// The edge run (`epoch`), when the edge says.
        var epoch: Int64?
        /// Highest `seq` accepted.
        var highest: UInt64
        /// Bit i set: `highest - i` was received.
        var bits: UInt64 = 1
        /// `sent` of the newest batch.
        var newestSent: Int64
    }

    /// The current run; nil before the first batch.
    private(set) var current: Window?
    /// The run before the current one, so that its late or repeated batches are recognised.
    private var previous: Window?
    /// Batches received.
    private(set) var received: UInt64 = 0
    /// Batches missing from the sequence (gaps), net of those that arrived late.
    private(set) var lost: UInt64 = 0
    /// Batches ignored as duplicates.
    private(set) var duplicates: UInt64 = 0
    /// Times the gateway's sequence restarted (an edge restart).
    private(set) var restarts: UInt64 = 0
    /// Batches missing between the progress restored at start (the snapshot) and the first batch
    /// after it: processed by the previous process after its last snapshot, or lost when it stopped.
    private(set) var restartGap: UInt64 = 0
    /// Progress was restored and no newer batch has arrived yet: the next gap is a restart gap.
    private var gapIsRestart = false
    /// Event time of the last batch (its `sent`), for silence detection. A batch, even an empty
    /// heartbeat, says the gateway listened up to then: its silence about a device is evidence up
    /// to this time, not beyond.
    var lastBatch: Int64 = .min
    /// Event time since when the gateway's batches have covered time without a break: from its
    /// first batch in this process, or the first after a gap longer than three of its batch
    /// windows (it stopped producing them: an edge restart, a stall). Its silence about a device
    /// counts only from here. A lost heartbeat or two, or an outage whose batches the edge kept and
    /// sent later, is no break.
    var aliveSince: Int64 = .min
    /// The run of coverage before its last break: from that run's ``aliveSince`` to its last batch
    /// (the batch before a hole, if one was open); `.min` before any break. A silence it held whole
    /// stays evidence: an edge that crashes during a broker outage, after a device had already
    /// been silent long enough, must not restart that silence at its return.
    private(set) var brokenRunSince: Int64 = .min
    private(set) var brokenRunTo: Int64 = .min
    /// Where a hole still open when a restart ended its run began (``restart(seq:sent:epoch:)``
    /// clears the hole): that run covered only up to there. For the next ``noteBatch(sent:)``.
    private var restartHoleFrom: Int64 = .max
    /// The gateway's batch window as its batches show it, ms (0 until two consecutive batches
    /// arrived): the longest recent `sent` step between consecutive `seq`s, decaying by an eighth
    /// per step. An edge configured with a long window (`batch_window_ms`) is silent that long
    /// between heartbeats.
    private(set) var interval: Int64 = 0
    /// How many `seq`s the last booked batch advanced its run by (0: it did not, e.g. a late one).
    private var advance: UInt64 = 0
    /// A new edge run began: its window is learnt afresh from its next step.
    private var relearn = false
    /// When its last batch arrived: on the live service's arrival clock (wall time while the
    /// aggregator was connected), or, in a replay, the chain's event time then. A gateway whose
    /// batches keep coming is alive even if its own clock (`sent`) lags the chain's (a clock
    /// behind, a slow bridge, a backlog others replayed first); only its coverage lags with it.
    var arrivedAt: Int64 = .min
    /// The longest batch window an edge accepts (`batch_window_ms` ≤ 60 000), ms.
    static let maxInterval: Int64 = 60_000
    /// Batches skipped by the sequence and not arrived yet: while any are missing (for at most
    /// ``holeUntil``), what the gateway reported on stops at ``holeFrom``: a batch swapped on the
    /// way, or lost, may have carried a device.
    private var missing: UInt64 = 0
    private var holeFrom: Int64 = .min
    private var holeUntil: Int64 = .min
    /// How long a hole in the sequence holds the gateway's coverage back, ms.
    static let holeWait: Int64 = 5_000
    /// Set by an explicit offline status (the edge's Last Will); cleared by any batch or online status.
    var reportedOffline = false
    /// The gateway's reception floor: a running estimate of the 1st percentile of the calibrated
    /// RSSI it reports, dBm — below it an advert is usually not heard at all.
    var floor = -90.0
    /// Event time of the latest sighting it reported, of any device: a gateway that heard no one
    /// lately may be deaf, and its silence about one device then says nothing.
    var lastHeard: Int64 = .min

    /// Moves ``floor`` towards the 1st percentile (a stochastic-approximation quantile step).
    @inline(__always)
    mutating func noteRSSI(_ rssi: Double) {
        floor += rssi < floor ? -0.99 * 0.2 : 0.01 * 0.2
    }

    /// What to do with a batch.
    enum Verdict: Equatable {
        /// New data: process it.
        case accept
        /// Seen before (QoS 1 redelivery, a bridge replay): ignore it.
        case duplicate
    }

    /// Books a batch's sequence number and says whether it is new.
    ///
    /// A batch of a new `epoch` (or, without epochs, a lower `seq` with a later `sent` than
    /// anything seen) is an edge that restarted: accepted, the window reset. A lower `seq` inside the
    /// window that was missing is a late arrival: accepted, and no longer counted as lost.
    mutating func book(seq: UInt64, sent: Int64, epoch: Int64? = nil) -> Verdict {
        guard var run = current else {
            current = Window(epoch: epoch, highest: seq, newestSent: sent)
            received += 1
            return .accept
        }
        if let epoch, let known = run.epoch, epoch != known {
            guard var old = previous, old.epoch == epoch else { return restart(seq: seq, sent: sent, epoch: epoch) }
            if seq > old.highest && sent > run.newestSent {
                // That run is the live one after all (a stale batch looked like a restart): back to it.
                previous = run
                current = old
                return book(seq: seq, sent: sent, epoch: epoch)
            }
            // The previous run's batch, late (a bridge or a spill file emptying): booked against that run.
            guard Self.take(seq, into: &old) else {
                duplicates += 1
                return .duplicate
            }
            previous = old
            received += 1
            return .accept
        }
        if run.epoch == nil, let epoch { run.epoch = epoch }  // an edge upgraded in place, or a resumed snapshot
        if seq > run.highest {
            let gap = seq - run.highest
            advance = gap
            if gap > 1 {
                // A hole: wait 5 s for the missing batches (reordering on the way is far quicker;
                // a batch lost is lost); a hole whose wait is over closes, and this one starts
                // afresh.
                if missing == 0 || sent > holeUntil {
                    holeFrom = run.newestSent
                    holeUntil = sent + Self.holeWait
                    missing = 0
                }
                missing = missing.addingReportingOverflow(gap - 1).overflow ? .max : missing + (gap - 1)
            }
            // Saturating: `seq` may be anything up to 2^53 − 1, and a crafted stream of restarts
            // must not overflow the counters.
            if gapIsRestart {
                restartGap = restartGap.addingReportingOverflow(gap - 1).overflow ? .max : restartGap + (gap - 1)
                gapIsRestart = false
            } else {
                lost = lost.addingReportingOverflow(gap - 1).overflow ? .max : lost + (gap - 1)
            }
            run.bits = gap >= 64 ? 1 : (run.bits << gap) | 1
            run.highest = seq
            run.newestSent = max(run.newestSent, sent)
            current = run
            received += 1
            return .accept
        }
        // Without epochs, a lower seq sent later than anything seen is a restarted edge (inside the
        // window, where a repeat is the likelier story, only when clearly later).
        let age = run.highest - seq
        if age < 64 {
            if run.bits & (1 << age) != 0 {
                if epoch == nil && sent > run.newestSent + 1000 && seq < run.highest { return restart(seq: seq, sent: sent, epoch: nil) }
                duplicates += 1
                return .duplicate
            }
            run.bits |= 1 << age
            current = run
            if missing > 0 { missing -= 1 }
            if lost > 0 { lost -= 1 } else if restartGap > 0 { restartGap -= 1 }
            received += 1
            return .accept
        }
        if epoch == nil && sent > run.newestSent { return restart(seq: seq, sent: sent, epoch: nil) }
        duplicates += 1
        return .duplicate
    }

    /// Marks `seq` received in `window` if it is new there (moving the window up for a higher one).
    /// (Used only for the previous run's batches, which never move ``lastBatch``.)
    private static func take(_ seq: UInt64, into window: inout Window) -> Bool {
        if seq > window.highest {
            let gap = seq - window.highest
            window.bits = gap >= 64 ? 1 : (window.bits << gap) | 1
            window.highest = seq
            return true
        }
        guard window.highest - seq < 64 else { return false }
        let bit: UInt64 = 1 << (window.highest - seq)
        guard window.bits & bit == 0 else { return false }
        window.bits |= bit
        return true
    }

    /// Continues from a previous process's progress (the snapshot): everything up to `seq` counts
    /// as received, so a redelivered batch is a duplicate, and the first gap is a restart gap.
    mutating func resume(seq: UInt64, sent: Int64, epoch: Int64?) {
        guard current == nil else { return }  // live traffic already arrived: it wins
        current = Window(epoch: epoch, highest: seq, bits: .max, newestSent: sent)
        gapIsRestart = true
    }

    private mutating func restart(seq: UInt64, sent: Int64, epoch: Int64?) -> Verdict {
        gapIsRestart = false
        restarts += 1
        // A new edge run: its window may be configured differently (learnt again from its next
        // step); its coverage has a hole only if it was down longer than its usual gap, which
        // ``noteBatch(sent:)`` judges with the window known so far — a crash-looping edge back in
        // a second must not restart every silence it heard.
        relearn = true
        advance = 0
        restartHoleFrom = missing > 0 && sent <= holeUntil ? holeFrom : .max
        missing = 0
        previous = current
        current = Window(epoch: epoch, highest: seq, newestSent: sent)
        received += 1
        return .accept
    }

    /// Whether the gateway counts as alive at event time `now`.
    /// Silent (neither its clock nor the chain's moved on by a batch of it) for `silence`
    /// (`gateway_silence_s`) or ``longestGap``, whichever is longer, or offline by its Last Will:
    /// down.
    func isOnline(at now: Int64, arrival: Int64? = nil, silence: Int64) -> Bool {
        let bound = max(silence, longestGap)
        return !reportedOffline && lastBatch != .min && (now - lastBatch <= bound || (arrival ?? now) - arrivedAt <= bound)
    }

    /// Whether its batches were still arriving around event time `time` (its last one no older
    /// than its silence bound then, or later); false for a gateway never heard from.
    func wasReporting(at time: Int64, silence: Int64) -> Bool {
        lastBatch != .min && lastBatch >= time - max(silence, longestGap)
    }

    /// Up to when, at event time `w`, the gateway has reported everything it heard: its last
    /// batch, or, while batches before it are missing (swapped on the way, or lost — given up
    /// after ``holeWait``), the batch before the hole.
    func coveredTo(at w: Int64) -> Int64 {
        missing > 0 && w <= holeUntil ? holeFrom : lastBatch
    }

    /// The longest normal silence between its batches: three windows, or, before a second batch
    /// has shown its window, the longest window an edge accepts (so a gateway with a long window
    /// is not taken for dead during its first one).
    var longestGap: Int64 { interval > 0 ? 3 * interval : Self.maxInterval }

    /// Where its silence about a device last heard at `lastSeen` counts from: its return
    /// (``aliveSince``) — unless the run before its last break alone held a whole silence longer
    /// than `threshold` after `lastSeen`: then from that run's start, up to its end (`until`). A
    /// break after the silence was already long enough says nothing about the device.
    func silenceStart(after lastSeen: Int64, threshold: Int64) -> (from: Int64, until: Int64?) {
        if aliveSince > lastSeen, brokenRunTo != .min, brokenRunTo - max(lastSeen, brokenRunSince) > threshold {
            return (max(lastSeen, brokenRunSince), brokenRunTo)
        }
        return (max(lastSeen, aliveSince), nil)
    }

    /// A heartbeat assumed at `time` (`replay --drain`): the gateway listened up to then.
    mutating func noteHeartbeat(at time: Int64) {
        lastBatch = max(lastBatch, time)
    }

    /// Books an accepted batch sent at `sent` (call after ``book(seq:sent:epoch:)``).
    mutating func noteBatch(sent: Int64) {
        guard lastBatch != .min else {
            aliveSince = sent
            advance = 0
            reportedOffline = false
            lastBatch = sent
            return
        }
        let step = sent - lastBatch
        // Judged against the window known before this step, which may itself be the gap. Two
        // windows lost or swapped on the way are no break; more are a hole in what it reported.
        if step > 3 * max(interval, 1000), sent > aliveSince {
            // The run before the break covered up to its last batch, or the batch before a hole
            // still open (one whose wait is over was a loss; it no longer cuts the run).
            brokenRunSince = aliveSince
            brokenRunTo = min(missing > 0 && sent <= holeUntil ? min(lastBatch, holeFrom) : lastBatch, restartHoleFrom)
            aliveSince = sent
        }
        restartHoleFrom = .max
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
        lastBatch = max(lastBatch, sent)
    }
}
