extension GatewayTrack {
    /// What to do with a batch.
    enum Verdict: Equatable {
        /// New data of the gateway's run: process it.
        case accept
        /// New data apart from the gateway's run (a far `seq` that starts or extends a
        /// ``Contender``, a `seq` already seen with another `sent`): its sightings are decided,
        /// but its `sent` is not taken for what the gateway covered, nor its arrival for a sign
        /// of life — a forged batch must not hold anyone's silence.
        case apart
        /// Seen before (QoS 1 redelivery, a bridge replay): ignore it.
        case duplicate
    }

    /// Books a batch's sequence number and says whether it is new.
    ///
    /// A batch of a new `epoch` (or, without epochs, a lower `seq` with a later `sent` than
    /// anything seen) is an edge that restarted: accepted, the window reset. A lower `seq` inside the
    /// window that was missing is a late arrival: accepted, and no longer counted as lost. A `seq`
    /// 64 or more from the window is accepted without moving it (see ``Contender``).
    mutating func book(seq: UInt64, sent: EventTime, epoch: Int64? = nil) -> Verdict {
        guard var run = current else {
            current = Window(epoch: epoch, first: seq, sent: sent)
            received += 1
            return .accept
        }
        if let epoch, let known = run.epoch, epoch != known { return bookOtherRun(seq: seq, sent: sent, epoch: epoch) }
        if run.epoch == nil, let epoch {
            // An edge upgraded in place, or a resumed snapshot.
            run.epoch = epoch
            current = run
            contender?.window.epoch = epoch
        }
        if seq > run.highest {
            let gap = seq - run.highest
            return gap < 64 ? bookAhead(seq: seq, gap: gap, sent: sent) : bookApart(seq: seq, sent: sent)
        }
        guard run.contains(seq) else {
            // Without epochs, a lower seq sent later than anything seen is a restarted edge.
            if contender?.reaches(seq) != true, epoch == nil && sent > run.newestSent { return restart(seq: seq, sent: sent, epoch: nil) }
            return bookApart(seq: seq, sent: sent)
        }
        switch run.match(seq, sent: sent) {
        case .same:
            duplicates += 1
            return .duplicate
        case .other:
            // Inside the window, where a repeat is the likelier story, a restart only when clearly later.
            if epoch == nil && sent > run.newestSent + 1000 && seq < run.highest { return restart(seq: seq, sent: sent, epoch: nil) }
            return bookCollision()
        case .new:
            if contender?.repeats(seq, sent: sent) == true {
                duplicates += 1
                return .duplicate
            }
            run.mark(seq, print: SentPrints.print(sent))
            current = run
            fillHole()
            noteLateArrival()
            contender?.answered()
            foldContender()
            received += 1
            return .accept
        }
    }

    /// A `seq` less than 64 above the window: new, and the `seq`s skipped are lost until they arrive.
    private mutating func bookAhead(seq: UInt64, gap: UInt64, sent: EventTime) -> Verdict {
        guard var run = current else { return .accept }
        if contender?.repeats(seq, sent: sent) == true {
            duplicates += 1
            return .duplicate
        }
        advance = gap
        if gap > 1 { openHole(skipping: gap - 1, after: run.newestSent, sent: sent) }
        bookLoss(gap - 1)
        run.moveUp(to: seq, sent: sent)
        current = run
        contender?.answered()
        foldContender()
        received += 1
        return .accept
    }

    /// A `seq` already received with another `sent`: not a repeat but another batch (a forged
    /// one, or the edge's own after a forged one took its `seq`), decided like any other. The
    /// window keeps the first one's print.
    mutating func bookCollision() -> Verdict {
        seqAnomalies = Self.saturatingSum(seqAnomalies, 1)
        received += 1
        return .apart
    }

    /// `skipped` batches went missing: lost, or, for the first gap after progress restored from
    /// a snapshot, the restart gap.
    mutating func bookLoss(_ skipped: UInt64) {
        // Saturating: `seq` may be anything up to 2^53 − 1, and a crafted stream of restarts
        // must not overflow the counters.
        if gapIsRestart {
            restartGap = Self.saturatingSum(restartGap, skipped)
            gapIsRestart = false
        } else {
            lost = Self.saturatingSum(lost, skipped)
        }
    }

    /// A batch counted as lost arrived after all.
    mutating func noteLateArrival() {
        if lost > 0 { lost -= 1 } else if restartGap > 0 { restartGap -= 1 }
    }

    /// A batch of another `epoch` than the current run's: the previous run's (late, or the live
    /// one after all), or a new run.
    private mutating func bookOtherRun(seq: UInt64, sent: EventTime, epoch: Int64) -> Verdict {
        guard let run = current, var old = previous, old.epoch == epoch else { return restart(seq: seq, sent: sent, epoch: epoch) }
        let inOld = seq > old.highest ? seq - old.highest < 64 : old.contains(seq)
        guard inOld else {
            // Far from where that run was: an old batch again, or, sent lately, that run going on
            // after a forged or corrupted batch — decided as the current run's would be.
            if sent <= old.newestSent - Self.repeatAge {
                duplicates += 1
                return .duplicate
            }
            return switchBack(seq: seq, sent: sent, epoch: epoch)
        }
        // Newer than anything of the current run: that run is the live one after all (a stale or
        // forged batch looked like a restart).
        if sent > run.newestSent && seq > old.highest { return switchBack(seq: seq, sent: sent, epoch: epoch) }
        // The previous run's batch, late (a bridge or a spill file emptying): booked against that run.
        if seq > old.highest {
            old.moveUp(to: seq, sent: sent)
        } else {
            switch old.match(seq, sent: sent) {
            case .same:
                duplicates += 1
                return .duplicate
            case .other:
                return bookCollision()
            case .new:
                old.mark(seq, print: SentPrints.print(sent))
            }
        }
        previous = old
        received += 1
        return .accept
    }

    /// Makes the previous run current again and books the batch there: the run left came and
    /// went, an anomaly rather than an edge restart.
    private mutating func switchBack(seq: UInt64, sent: EventTime, epoch: Int64) -> Verdict {
        seqAnomalies = Self.saturatingSum(seqAnomalies, 1)
        contender = nil
        swap(&previous, &current)
        return book(seq: seq, sent: sent, epoch: epoch)
    }

    /// `skipped` batches are missing after the one sent at `from`: wait 5 s for them (reordering
    /// on the way is far quicker; a batch lost is lost). A hole whose wait is over closes, and this
    /// one starts afresh.
    mutating func openHole(skipping skipped: UInt64, after from: EventTime, sent: EventTime) {
        var open = hole.flatMap { sent > $0.until ? nil : $0 } ?? Hole(missing: 0, from: from, until: sent + Self.holeWait)
        open.missing = Self.saturatingSum(open.missing, skipped)
        hole = open
    }

    /// A missing batch arrived late.
    mutating func fillHole() {
        guard var open = hole else { return }
        open.missing -= 1
        hole = open.missing > 0 ? open : nil
    }

    static func saturatingSum(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }

    /// Continues from a previous process's progress (the snapshot): everything up to `seq` counts
    /// as received, so a redelivered batch is a duplicate, and the first gap is a restart gap.
    mutating func resume(seq: UInt64, sent: EventTime, epoch: Int64?) {
        guard current == nil else { return }  // live traffic already arrived: it wins
        current = Window(epoch: epoch, resuming: seq, sent: sent)
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
        contender = nil
        current = Window(epoch: epoch, first: seq, sent: sent)
        received += 1
        return .accept
    }
}
