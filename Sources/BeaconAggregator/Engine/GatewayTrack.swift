/// What the engine knows of one gateway's stream: sequence numbers (duplicates, loss), liveness.
struct GatewayTrack: Sendable {
    /// Highest `seq` accepted so far; nil before the first batch.
    private(set) var highestSeq: UInt64?
    /// Bit i set: `highestSeq - i` was received (a window of 64 for duplicates and late arrivals).
    private var window: UInt64 = 0
    /// `sent` of the batch with ``highestSeq``.
    private(set) var highestSent: Int64 = .min
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
    /// Event time of the last batch (its `sent`), for silence detection.
    var lastBatch: Int64 = .min
    /// Set by an explicit offline status (the edge's Last Will); cleared by any batch or online status.
    var reportedOffline = false

    /// What to do with a batch.
    enum Verdict: Equatable {
        /// New data: process it.
        case accept
        /// Seen before (QoS 1 redelivery, a bridge replay): ignore it.
        case duplicate
    }

    /// Books a batch's sequence number and says whether it is new.
    ///
    /// A lower `seq` with a later `sent` than anything seen is an edge that restarted and counts
    /// from 0 again: accepted, the window reset. A lower `seq` inside the window that was missing is
    /// a late arrival: accepted, and no longer counted as lost.
    mutating func book(seq: UInt64, sent: Int64) -> Verdict {
        guard let high = highestSeq else {
            highestSeq = seq
            highestSent = sent
            window = 1
            received = 1
            return .accept
        }
        if seq > high {
            let gap = seq - high
            if gapIsRestart {
                restartGap += gap - 1
                gapIsRestart = false
            } else {
                lost += gap - 1
            }
            window = gap >= 64 ? 1 : (window << gap) | 1
            highestSeq = seq
            highestSent = max(highestSent, sent)
            received += 1
            return .accept
        }
        let age = high - seq
        if age < 64 {
            let bit: UInt64 = 1 << age
            if window & bit != 0 {
                if sent > highestSent + 1000 && seq < high { return restart(seq: seq, sent: sent) }
                duplicates += 1
                return .duplicate
            }
            window |= bit
            if lost > 0 { lost -= 1 } else if restartGap > 0 { restartGap -= 1 }
            received += 1
            return .accept
        }
        if sent > highestSent { return restart(seq: seq, sent: sent) }
        duplicates += 1
        return .duplicate
    }

    /// Continues from a previous process's progress (the snapshot): everything up to `seq` counts
    /// as received, so a redelivered batch is a duplicate, and the first gap is a restart gap.
    mutating func resume(seq: UInt64, sent: Int64) {
        guard highestSeq == nil else { return }  // live traffic already arrived: it wins
        highestSeq = seq
        highestSent = sent
        window = .max
        gapIsRestart = true
    }

    private mutating func restart(seq: UInt64, sent: Int64) -> Verdict {
        gapIsRestart = false
        restarts += 1
        highestSeq = seq
        highestSent = sent
        window = 1
        received += 1
        return .accept
    }

    /// Whether the gateway counts as alive at event time `now`.
    func isOnline(at now: Int64, silence: Int64) -> Bool {
        !reportedOffline && lastBatch != .min && now - lastBatch <= silence
    }
}
