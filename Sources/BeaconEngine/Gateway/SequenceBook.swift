/// One gateway's sequence numbers: which batches arrived (duplicates, loss, late arrivals) and
/// which edge run they belong to.
///
/// An edge counts its batches from 0 when it starts (unless its spill file continues an older
/// run's count) and names that run in its batches' `epoch`. A batch of another epoch than the
/// current and the previous run's is a restart: the window starts again there, nothing counted as
/// lost (no ordering of epochs is assumed, so a gateway clock that jumps back does no harm). Batches
/// without an epoch (older edges, recordings) fall back to a guess: a lower `seq` with a `sent`
/// clearly after everything seen is a restart. Inside one run, a `seq` 64 or more away from the
/// window (a forged or corrupted batch, an edge that dropped part of its outage buffer) does not
/// move it: it starts a ``Contender``, and whichever of the two streams goes on wins.
///
/// Booking a batch also tells the gateway's ``Coverage`` what the sequence shows of its time:
/// holes that open and fill, and restarts.
struct SequenceBook: Sendable {
    /// What to do with a batch.
    enum Verdict: Equatable {
        /// New data of the gateway's run, which moved the run's sequence on by `advance` `seq`s
        /// (0: a late one, or the first): process it.
        case accept(advance: UInt64)
        /// New data apart from the gateway's run (a far `seq` that starts or extends a
        /// ``Contender``, a `seq` already seen with another `sent`): its sightings are decided,
        /// but its `sent` is not taken for what the gateway covered, nor its arrival for a sign
        /// of life — a forged batch must not hold anyone's silence.
        case apart
        /// Seen before (QoS 1 redelivery, a bridge replay): ignore it.
        case duplicate
    }

    /// What the next gap in the sequence is.
    enum NextGap: Sendable {
        /// Batches lost on the way.
        case loss
        /// Progress was restored from a snapshot and no newer batch has arrived yet: the gap is
        /// what the previous process handled after its last snapshot, or lost when it stopped.
        case sinceSnapshot
    }

    /// The current run of sequence numbers; nil before the first batch.
    var current: SequenceWindow?
    /// The run before the current one, so that its late or repeated batches are recognised.
    private(set) var previous: SequenceWindow?
    /// A stream of the current run's `seq`s that jumped 64 or more away from ``current``, kept
    /// apart until it shows whether it goes on (SequenceBook+Contender.swift); nil when none.
    var contender: Contender?
    /// What the book has counted.
    var counters = SequenceCounters()
    /// What the next gap is.
    var nextGap = NextGap.loss

    /// Books a batch's sequence number and says whether it is new.
    ///
    /// A batch of a new `epoch` (or, without epochs, a lower `seq` with a later `sent` than
    /// anything seen) is an edge that restarted: accepted, the window reset. A lower `seq` inside the
    /// window that was missing is a late arrival: accepted, and no longer counted as lost. A `seq`
    /// 64 or more from the window is accepted without moving it (see ``Contender``).
    mutating func book(seq: UInt64, sent: EventTime, epoch: Int64?, coverage: inout Coverage) -> Verdict {
        guard var run = current else {
            current = SequenceWindow(epoch: epoch, first: seq, sent: sent)
            counters.received += 1
            return .accept(advance: 0)
        }
        if let epoch, let known = run.epoch, epoch != known { return bookOtherRun(seq: seq, sent: sent, epoch: epoch, coverage: &coverage) }
        if run.epoch == nil, let epoch {
            // An edge upgraded in place, or a resumed snapshot.
            run.epoch = epoch
            current = run
            contender?.window.epoch = epoch
        }
        if seq > run.highest {
            let gap = seq - run.highest
            return gap < 64
                ? bookAhead(seq: seq, gap: gap, sent: sent, coverage: &coverage) : bookApart(seq: seq, sent: sent, coverage: &coverage)
        }
        guard run.contains(seq) else {
            // Without epochs, a lower seq sent later than anything seen is a restarted edge.
            if contender?.reaches(seq) != true, epoch == nil && sent > run.newestSent {
                return restart(seq: seq, sent: sent, epoch: nil, coverage: &coverage)
            }
            return bookApart(seq: seq, sent: sent, coverage: &coverage)
        }
        return bookInside(seq: seq, sent: sent, epoch: epoch, coverage: &coverage)
    }

    /// A `seq` inside the window: a repeat, another batch with that `seq`, or a late arrival.
    private mutating func bookInside(seq: UInt64, sent: EventTime, epoch: Int64?, coverage: inout Coverage) -> Verdict {
        guard var run = current else { return .apart }
        switch run.match(seq, sent: sent) {
        case .same:
            counters.duplicates += 1
            return .duplicate
        case .other:
            // Inside the window, where a repeat is the likelier story, a restart only when clearly later.
            if epoch == nil && sent > run.newestSent + EventDuration(milliseconds: 1000) && seq < run.highest {
                return restart(seq: seq, sent: sent, epoch: nil, coverage: &coverage)
            }
            return bookCollision()
        case .new:
            if contender?.repeats(seq, sent: sent) == true {
                counters.duplicates += 1
                return .duplicate
            }
            run.mark(seq, print: SentPrints.print(sent))
            current = run
            coverage.fillHole()
            noteLateArrival()
            contender?.answered()
            foldContender(coverage: &coverage)
            counters.received += 1
            return .accept(advance: 0)
        }
    }

    /// A `seq` less than 64 above the window: new, and the `seq`s skipped are lost until they arrive.
    private mutating func bookAhead(seq: UInt64, gap: UInt64, sent: EventTime, coverage: inout Coverage) -> Verdict {
        guard var run = current else { return .accept(advance: 0) }
        if contender?.repeats(seq, sent: sent) == true {
            counters.duplicates += 1
            return .duplicate
        }
        if gap > 1 { coverage.openHole(skipping: gap - 1, after: run.newestSent, sent: sent) }
        bookLoss(gap - 1)
        run.moveUp(to: seq, sent: sent)
        current = run
        contender?.answered()
        foldContender(coverage: &coverage)
        counters.received += 1
        return .accept(advance: gap)
    }

    /// A `seq` already received with another `sent`: not a repeat but another batch (a forged
    /// one, or the edge's own after a forged one took its `seq`), decided like any other. The
    /// window keeps the first one's print.
    mutating func bookCollision() -> Verdict {
        counters.seqAnomalies = SequenceCounters.saturatingSum(counters.seqAnomalies, 1)
        counters.received += 1
        return .apart
    }

    /// `skipped` batches went missing: lost, or, for the first gap after progress restored from
    /// a snapshot, the restart gap.
    mutating func bookLoss(_ skipped: UInt64) {
        switch nextGap {
        case .sinceSnapshot:
            counters.restartGap = SequenceCounters.saturatingSum(counters.restartGap, skipped)
            nextGap = .loss
        case .loss:
            counters.lost = SequenceCounters.saturatingSum(counters.lost, skipped)
        }
    }

    /// A batch counted as lost arrived after all.
    mutating func noteLateArrival() {
        if counters.lost > 0 { counters.lost -= 1 } else if counters.restartGap > 0 { counters.restartGap -= 1 }
    }

    /// A batch of another `epoch` than the current run's: the previous run's (late, or the live
    /// one after all), or a new run.
    private mutating func bookOtherRun(seq: UInt64, sent: EventTime, epoch: Int64, coverage: inout Coverage) -> Verdict {
        guard let run = current, var old = previous, old.epoch == epoch else {
            return restart(seq: seq, sent: sent, epoch: epoch, coverage: &coverage)
        }
        let inOld = seq > old.highest ? seq - old.highest < 64 : old.contains(seq)
        guard inOld else {
            // Far from where that run was: an old batch again, or, sent lately, that run going on
            // after a forged or corrupted batch — decided as the current run's would be.
            if sent <= old.newestSent - Self.repeatAge {
                counters.duplicates += 1
                return .duplicate
            }
            return switchBack(seq: seq, sent: sent, epoch: epoch, coverage: &coverage)
        }
        // Newer than anything of the current run: that run is the live one after all (a stale or
        // forged batch looked like a restart).
        if sent > run.newestSent && seq > old.highest { return switchBack(seq: seq, sent: sent, epoch: epoch, coverage: &coverage) }
        // The previous run's batch, late (a bridge or a spill file emptying): booked against that run.
        if seq > old.highest {
            old.moveUp(to: seq, sent: sent)
        } else {
            switch old.match(seq, sent: sent) {
            case .same:
                counters.duplicates += 1
                return .duplicate
            case .other:
                return bookCollision()
            case .new:
                old.mark(seq, print: SentPrints.print(sent))
            }
        }
        previous = old
        counters.received += 1
        return .accept(advance: 0)
    }

    /// Makes the previous run current again and books the batch there: the run left came and
    /// went, an anomaly rather than an edge restart.
    private mutating func switchBack(seq: UInt64, sent: EventTime, epoch: Int64, coverage: inout Coverage) -> Verdict {
        counters.seqAnomalies = SequenceCounters.saturatingSum(counters.seqAnomalies, 1)
        contender = nil
        swap(&previous, &current)
        return book(seq: seq, sent: sent, epoch: epoch, coverage: &coverage)
    }

    /// Continues from a previous process's progress (the snapshot): everything up to `seq` counts
    /// as received, so a redelivered batch is a duplicate, and the first gap is a restart gap.
    mutating func resume(seq: UInt64, sent: EventTime, epoch: Int64?) {
        guard current == nil else { return }  // live traffic already arrived: it wins
        current = SequenceWindow(epoch: epoch, resuming: seq, sent: sent)
        nextGap = .sinceSnapshot
    }

    /// A new edge run: its window may be configured differently (learnt again from its next
    /// step); its coverage has a hole only if it was down longer than its usual gap, which
    /// ``Coverage/noteBatch(sent:advance:)`` judges with the window known so far — a crash-looping
    /// edge back in a second must not restart every silence it heard.
    private mutating func restart(seq: UInt64, sent: EventTime, epoch: Int64?, coverage: inout Coverage) -> Verdict {
        nextGap = .loss
        counters.restarts += 1
        coverage.noteRestart(sent: sent)
        previous = current
        contender = nil
        current = SequenceWindow(epoch: epoch, first: seq, sent: sent)
        counters.received += 1
        return .accept(advance: 0)
    }
}

/// What a gateway's sequence book has counted.
struct SequenceCounters: Sendable {
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

    /// `a + b`, or the largest count where that overflows: `seq` may be anything up to 2^53 − 1,
    /// and a crafted stream of restarts must not overflow the counters.
    static func saturatingSum(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? .max : sum
    }
}
