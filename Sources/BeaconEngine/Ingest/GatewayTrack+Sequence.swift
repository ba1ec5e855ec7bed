extension GatewayTrack {
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
    mutating func book(seq: UInt64, sent: EventTime, epoch: Int64? = nil) -> Verdict {
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
            if gap > 1 { openHole(skipping: gap - 1, after: run.newestSent, sent: sent) }
            // Saturating: `seq` may be anything up to 2^53 − 1, and a crafted stream of restarts
            // must not overflow the counters.
            if gapIsRestart {
                restartGap = Self.saturatingSum(restartGap, gap - 1)
                gapIsRestart = false
            } else {
                lost = Self.saturatingSum(lost, gap - 1)
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
            fillHole()
            if lost > 0 { lost -= 1 } else if restartGap > 0 { restartGap -= 1 }
            received += 1
            return .accept
        }
        if epoch == nil && sent > run.newestSent { return restart(seq: seq, sent: sent, epoch: nil) }
        duplicates += 1
        return .duplicate
    }

    /// `skipped` batches are missing after the one sent at `from`: wait 5 s for them (reordering
    /// on the way is far quicker; a batch lost is lost). A hole whose wait is over closes, and this
    /// one starts afresh.
    private mutating func openHole(skipping skipped: UInt64, after from: EventTime, sent: EventTime) {
        var open = hole.flatMap { sent > $0.until ? nil : $0 } ?? Hole(missing: 0, from: from, until: sent + Self.holeWait)
        open.missing = Self.saturatingSum(open.missing, skipped)
        hole = open
    }

    /// A missing batch arrived late.
    private mutating func fillHole() {
        guard var open = hole else { return }
        open.missing -= 1
        hole = open.missing > 0 ? open : nil
    }

    private static func saturatingSum(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
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
    mutating func resume(seq: UInt64, sent: EventTime, epoch: Int64?) {
        guard current == nil else { return }  // live traffic already arrived: it wins
        current = Window(epoch: epoch, highest: seq, bits: .max, newestSent: sent)
        gapIsRestart = true
    }

    private mutating func restart(seq: UInt64, sent: EventTime, epoch: Int64?) -> Verdict {
        gapIsRestart = false
        restarts += 1
        // A new edge run: its window may be configured differently (learnt again from its next
        // step); its coverage has a hole only if it was down longer than its usual gap, which
        // ``noteBatch(sent:)`` judges with the window known so far — a crash-looping edge back in
        // a second must not restart every silence it heard.
        relearn = true
        advance = 0
        restartHoleFrom = hole.flatMap { sent <= $0.until ? $0.from : nil }
        hole = nil
        previous = current
        current = Window(epoch: epoch, highest: seq, newestSent: sent)
        received += 1
        return .accept
    }
}
