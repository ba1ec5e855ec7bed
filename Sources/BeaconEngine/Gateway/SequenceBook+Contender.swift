extension SequenceBook {
    /// A stream of `seq`s of the current run 64 or more away from its window, kept apart from it.
    ///
    /// One batch with an absurd `seq` (forged, or a corrupted counter) must not decide what the
    /// gateway's next `seq` is: were the window moved to it, every genuine batch after it would be
    /// a repeat until the edge restarted, and the jump would be counted as loss. So a far `seq`
    /// starts a contender, its batch is decided like any other, and the window stays. Whichever
    /// stream goes on wins, as a broker keeps the session that is still talking: when the
    /// contender's next batch comes with no batch of the window in between, it is the live
    /// stream (the edge dropped part of its outage buffer, or its counter jumped) and takes the
    /// window's place — the window becomes the contender, so that if it was the live one after
    /// all it takes its place back the same way. A contender the window catches up with (a live
    /// batch sent before the edge's backlog) is folded into it.
    ///
    /// A jump counts as loss only once its stream goes on and only as far as the `sent` times
    /// allow (``fitsLoss(_:over:)``); otherwise it is a sequence anomaly.
    struct Contender: Sendable {
        /// Its sequence numbers; ``SequenceWindow/jumpLoss`` unused.
        var window: SequenceWindow
        /// The `seq` it started at.
        var first: UInt64
        /// The `sent` of its first batch.
        var firstSent: EventTime
        /// `seq`s skipped inside it, not arrived yet.
        var lost: UInt64 = 0
        /// No batch of the window arrived since this stream's last: if another comes now, it is
        /// the stream that goes on.
        var unanswered = true
        /// Whether it is counted in ``SequenceCounters/seqAnomalies`` (taken back if it turns out to
        /// be a jump over batches the edge dropped, or part of the window).
        var counted: Bool
        /// Whether its jump fitted the `sent` time elapsed (``fitsLoss(_:over:)``): folded into
        /// the window, it was part of the edge's stream after all (a live batch sent before the
        /// backlog), and no anomaly.
        var fits: Bool

        /// Whether `seq` is in its window or less than 64 above it.
        func reaches(_ seq: UInt64) -> Bool {
            seq > window.highest ? seq - window.highest < 64 : window.contains(seq)
        }

        /// Whether a batch with `seq` sent at `sent` repeats one of this stream's.
        func repeats(_ seq: UInt64, sent: EventTime) -> Bool { window.contains(seq) && window.match(seq, sent: sent) == .same }

        /// A batch of the window arrived.
        mutating func answered() { unanswered = false }
    }

    /// How far `sent` may be ahead of a repeat still taken for a live batch: the most a
    /// gateway's clock may lead the aggregator's (`future_time`), so that the genuine stream
    /// comes back even after a forged batch stamped that far ahead took the window's place.
    static let repeatAge = EventDuration(milliseconds: 30_000)

    /// A `seq` 64 or more from the window: the contender's next, a repeat, or a new contender.
    mutating func bookApart(seq: UInt64, sent: EventTime, coverage: inout Coverage) -> Verdict {
        guard let run = current else { return .apart }
        if var rival = contender, rival.reaches(seq) {
            var step: UInt64 = 0
            if seq > rival.window.highest {
                step = seq - rival.window.highest
                rival.lost = SequenceCounters.saturatingSum(rival.lost, step - 1)
                rival.window.moveUp(to: seq, sent: sent)
            } else {
                switch rival.window.match(seq, sent: sent) {
                case .same:
                    counters.duplicates += 1
                    return .duplicate
                case .other:
                    return bookCollision()
                case .new:
                    rival.window.mark(seq, print: SentPrints.print(sent))
                    if rival.lost > 0 { rival.lost -= 1 }
                }
            }
            let goesOn = rival.unanswered
            rival.unanswered = true
            contender = rival
            counters.received += 1
            guard goesOn else { return .apart }
            promoteContender(sent: sent, coverage: &coverage)
            return .accept(advance: step)
        }
        // Far below the window and sent well before its newest: an old batch again (a bridge, a
        // spill file), not a stream.
        if seq < run.highest && sent <= run.newestSent - Self.repeatAge {
            counters.duplicates += 1
            return .duplicate
        }
        counters.seqAnomalies = SequenceCounters.saturatingSum(counters.seqAnomalies, 1)
        let fits = seq > run.highest && Self.fitsLoss(seq - run.highest, over: sent - run.newestSent, interval: coverage.interval)
        contender = Contender(
            window: SequenceWindow(epoch: run.epoch, first: seq, sent: sent), first: seq, firstSent: sent, counted: true, fits: fits)
        counters.received += 1
        return .apart
    }

    /// The contender went on while the window did not: it becomes the window, and the window the
    /// contender. `sent` is its last batch's.
    private mutating func promoteContender(sent: EventTime, coverage: inout Coverage) {
        guard let rival = contender, let run = current else { return }
        if run.jumpLoss > 0 {
            // The window had itself jumped away from a stream and counted the jump as loss; the
            // stream it left went on after all.
            counters.lost -= min(counters.lost, run.jumpLoss)
            counters.seqAnomalies = SequenceCounters.saturatingSum(counters.seqAnomalies, 1)
        }
        var promoted = rival.window
        let jump = rival.first > run.highest ? rival.first - run.highest : 0
        if jump > 0, Self.fitsLoss(jump, over: rival.firstSent - run.newestSent, interval: coverage.interval) {
            // The edge skipped batches it had dropped (its outage buffer overflowed): loss.
            if rival.counted { counters.seqAnomalies -= min(counters.seqAnomalies, 1) }
            promoted.jumpLoss = nextGap == .sinceSnapshot ? 0 : jump - 1
            bookLoss(jump - 1)
            coverage.openHole(skipping: jump - 1, after: run.newestSent, sent: sent)
        }
        counters.lost = SequenceCounters.saturatingSum(counters.lost, rival.lost)
        var left = run
        left.jumpLoss = 0
        current = promoted
        contender = Contender(
            window: left, first: left.highest, firstSent: left.newestSent, unanswered: false, counted: run.jumpLoss > 0, fits: false)
    }

    /// Folds a contender the window has caught up with into it: its batches are the window's.
    mutating func foldContender(coverage: inout Coverage) {
        guard let rival = contender, var run = current, rival.window.highest <= run.highest else { return }
        let distance = run.highest - rival.window.highest
        guard distance < 64 else { return }
        contender = nil
        var bits = rival.window.bits
        while bits != 0 {
            let offset = UInt64(bits.trailingZeroBitCount)
            bits &= bits - 1
            guard distance + offset < 64 else { break }
            let seq = rival.window.highest - offset
            if !run.has(seq) {
                let known = rival.window.printed & (1 << offset) != 0
                run.mark(seq, print: known ? rival.window.prints[seq] : nil)
                coverage.fillHole()
                noteLateArrival()
            }
        }
        // A forged `sent` far ahead must not date the window.
        if rival.fits { run.newestSent = max(run.newestSent, rival.window.newestSent) }
        current = run
        if rival.counted && rival.fits { counters.seqAnomalies -= min(counters.seqAnomalies, 1) }
    }

    /// Whether skipping to `jump` `seq`s ahead over `elapsed` of `sent` time fits an edge that
    /// dropped batches: at most four `seq`s per batch window (a window splits at 3 000
    /// sightings), the window as learnt (`interval`), or the shortest an edge accepts (10 ms) before it is.
    static func fitsLoss(_ jump: UInt64, over elapsed: EventDuration, interval: EventDuration?) -> Bool {
        guard elapsed > .zero else { return false }
        return jump <= (UInt64(elapsed / max(interval ?? .zero, EventDuration(milliseconds: 10))) + 1) * 4
    }
}
