import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// A gateway's sequence numbers against forged and corrupted `seq`s (``SequenceBook/Contender``):
/// a far jump is kept apart, the stream that goes on wins, and `loss` counts only batches an edge
/// could have dropped in the time that passed.
@Suite("Engine: sequence numbers that cannot be poisoned")
struct SequenceAnomalyTests {
    let t0: Int64 = 1_790_000_000_000
    let epoch: Int64 = 1_789_999_000_000

    /// A gateway that has sent `count` batches, one a second, seq 0…count−1.
    private func running(_ count: Int, epoch: Int64? = nil) -> GatewayStream {
        var g = GatewayStream()
        for i in 0..<count { feed(&g, UInt64(i), at(Int64(i) * 1000), epoch: epoch) }
        return g
    }

    @discardableResult
    private func feed(_ g: inout GatewayStream, _ seq: UInt64, _ sent: EventTime, epoch: Int64? = nil) -> SequenceBook.Verdict {
        g.book(seq: seq, sent: sent, epoch: epoch, arrival: nil, latest: nil)
    }

    @Test("one batch with seq 2^53 − 1 in the current epoch: the edge's next batches are still new, nothing counted as lost",
          arguments: [(1 << 53) - 1, 30 + 64, 1_000_000] as [UInt64])
    func forgedHugeSeq(_ forged: UInt64) {
        var g = running(30, epoch: epoch)
        #expect(feed(&g, forged, at(30_200), epoch: epoch) != .duplicate)
        // The forged batch again (a QoS 1 redelivery) is a repeat, not a second anomaly.
        #expect(feed(&g, forged, at(30_200), epoch: epoch) == .duplicate)
        for i in 30..<100 {
            #expect(feed(&g, UInt64(i), at(Int64(i) * 1000), epoch: epoch) != .duplicate, "seq \(i) after a forged \(forged)")
        }
        #expect(g.sequence.counters.lost == 0 && g.sequence.counters.duplicates == 1 && g.sequence.counters.seqAnomalies == 1)
        #expect(g.sequence.current?.highest == 99, "the window stays with the edge")
    }

    @Test("random forged seqs between every genuine batch: every genuine batch is decided, loss stays 0")
    func manyForgeries() {
        var random = SplitMix64(state: 20)
        var g = running(10, epoch: epoch)
        var forged = 0
        for i in 10..<400 {
            for _ in 0..<Int(random.next() % 3) {
                let seq = random.next() % 2 == 0 ? random.next() >> 11 : UInt64(i) + 64 + random.next() % 5000
                feed(&g, seq, at(Int64(i) * 1000 - Int64(random.next() % 60_000)), epoch: epoch)
                forged += 1
            }
            #expect(feed(&g, UInt64(i), at(Int64(i) * 1000), epoch: epoch) != .duplicate, "genuine seq \(i)")
        }
        #expect(g.sequence.counters.lost == 0)
        #expect(g.sequence.counters.seqAnomalies > 0 && g.sequence.counters.seqAnomalies <= UInt64(forged))
    }

    @Test("a corrupted counter that jumps and goes on from there: its batches stay new, and the jump is an anomaly, not loss")
    func corruptedCounterGoesOn() {
        var g = running(30, epoch: epoch)
        let jumped: UInt64 = 1 << 40
        for k in 0..<20 {
            #expect(feed(&g, jumped + UInt64(k), at(Int64(30 + k) * 1000), epoch: epoch) != .duplicate)
        }
        #expect(g.sequence.current?.highest == jumped + 19, "the stream that went on is the window")
        #expect(g.sequence.counters.lost == 0 && g.sequence.counters.seqAnomalies == 1)
        // The old stream's batch again: a repeat (its window is kept as the contender).
        #expect(feed(&g, 29, at(29_000), epoch: epoch) == .duplicate)
    }

    @Test("an edge that dropped the oldest half of its outage buffer: the jump is loss, no anomaly")
    func outageDropIsLoss() {
        var g = running(100)
        // An hour's outage: 3 600 batches, the oldest 1 800 dropped, the rest sent in order.
        for k in 1_800..<3_600 {
            #expect(feed(&g, UInt64(100 + k), at(Int64(100 + k) * 1000)) != .duplicate)
        }
        #expect(g.sequence.counters.lost == 1_800 && g.sequence.counters.seqAnomalies == 0 && g.sequence.counters.duplicates == 0)
        #expect(g.sequence.current?.highest == 3_699)
    }

    @Test("a forged pair that fits the time and takes the window: the edge takes it back, the loss it booked is retracted")
    func forgedPairTakenBack() {
        var g = running(60, epoch: epoch)
        // 100 ahead, stamped 40 s later: as if the edge had dropped 99 batches.
        feed(&g, 159, at(99_000), epoch: epoch)
        feed(&g, 160, at(100_000), epoch: epoch)
        #expect(g.sequence.current?.highest == 160 && g.sequence.counters.lost == 99 && g.sequence.counters.seqAnomalies == 0)
        for i in 60..<70 {
            #expect(feed(&g, UInt64(i), at(Int64(i) * 1000), epoch: epoch) != .duplicate, "genuine seq \(i)")
        }
        #expect(g.sequence.current?.highest == 69, "the edge's stream is the window again")
        #expect(g.sequence.counters.lost == 0 && g.sequence.counters.seqAnomalies == 1)
    }

    @Test("a live batch sent before the edge's backlog: the backlog is new, the live batch folds in, nothing lost or odd")
    func liveBeforeBacklog() {
        var g = running(1_000)
        // A 2-hour outage; the edge sends one live batch first, then its 4 000-batch backlog.
        #expect(feed(&g, 5_000, at(5_000_000)) != .duplicate)
        for i in 1_000..<5_000 {
            #expect(feed(&g, UInt64(i), at(Int64(i) * 1000)) != .duplicate, "backlog seq \(i)")
        }
        #expect(feed(&g, 5_000, at(5_000_000)) == .duplicate, "the live batch again")
        #expect(feed(&g, 5_001, at(5_001_000)) != .duplicate)
        #expect(g.sequence.counters.lost == 0 && g.sequence.counters.seqAnomalies == 0 && g.sequence.contender == nil)
    }

    @Test("two live batches before the backlog: the streams swap twice, every batch is new, nothing lost")
    func twoLiveBeforeBacklog() {
        var g = running(1_000)
        feed(&g, 5_000, at(5_000_000))
        feed(&g, 5_001, at(5_001_000))
        for i in 1_000..<5_000 {
            #expect(feed(&g, UInt64(i), at(Int64(i) * 1000)) != .duplicate, "backlog seq \(i)")
        }
        #expect(feed(&g, 5_002, at(5_002_000)) != .duplicate)
        #expect(feed(&g, 5_001, at(5_001_000)) == .duplicate)
        #expect(g.sequence.counters.lost == 0 && g.sequence.current?.highest == 5_002)
    }

    @Test("an old batch far behind the window, sent long before its newest, is a repeat; a recent one starts a stream")
    func farBehind() {
        var g = running(200, epoch: epoch)
        #expect(feed(&g, 50, at(50_000), epoch: epoch) == .duplicate)
        #expect(g.sequence.counters.seqAnomalies == 0)
        #expect(feed(&g, 20, at(199_500), epoch: epoch) != .duplicate)
        #expect(g.sequence.counters.seqAnomalies == 1)
    }

    @Test("progress resumed from a poisoned snapshot: the edge's stream takes over at its second batch")
    func poisonedSnapshot() {
        var g = GatewayStream()
        g.resume(seq: (1 << 53) - 1, sent: at(0), epoch: epoch)
        for i in 500..<520 {
            #expect(feed(&g, UInt64(i), at(Int64(i) * 1000), epoch: epoch) != .duplicate, "seq \(i)")
        }
        #expect(g.sequence.current?.highest == 519 && g.sequence.counters.lost == 0 && g.sequence.counters.restartGap == 0 && g.sequence.counters.seqAnomalies == 1)
    }

    @Test("a forged epoch: the edge's run comes back, the run that came and went is an anomaly")
    func forgedEpoch() {
        var g = running(30, epoch: epoch)
        #expect(feed(&g, 7, at(30_500), epoch: 42) != .duplicate)
        for i in 30..<40 {
            #expect(feed(&g, UInt64(i), at(Int64(i) * 1000 + 900), epoch: epoch) != .duplicate)
        }
        #expect(g.sequence.current?.epoch == epoch && g.sequence.counters.seqAnomalies == 1 && g.sequence.counters.lost == 0)
    }

    @Test("a forged batch with the previous run's epoch and a far seq: the live run takes over again at its next batch")
    func previousRunFarJump() {
        var g = running(200, epoch: epoch)
        for i in 0..<5 { feed(&g, UInt64(i), at(Int64(200 + i) * 1000), epoch: epoch + 1) }
        #expect(feed(&g, 1 << 50, at(204_500), epoch: epoch) != .duplicate)
        #expect(feed(&g, 5, at(205_000), epoch: epoch + 1) != .duplicate)
        #expect(g.sequence.current?.epoch == epoch + 1 && g.sequence.current?.highest == 5)
        #expect(feed(&g, 195, at(195_000), epoch: epoch) == .duplicate, "the previous run's window did not move")
        #expect(feed(&g, 20, at(20_000), epoch: epoch) == .duplicate, "an old batch far behind that run: a repeat")
        #expect(g.sequence.counters.lost == 0 && g.sequence.counters.seqAnomalies == 3)
    }

    @Test("a batch with a seq already seen but another sent is another batch, not a repeat")
    func collision() {
        var g = running(10, epoch: epoch)
        // A forged batch takes the seq the edge sends next; the edge's own is still decided.
        #expect(feed(&g, 10, at(9_700), epoch: epoch) != .duplicate)
        #expect(feed(&g, 10, at(10_000), epoch: epoch) != .duplicate)
        #expect(feed(&g, 10, at(9_700), epoch: epoch) == .duplicate, "the first one again")
        #expect(g.sequence.counters.seqAnomalies == 1 && g.sequence.counters.duplicates == 1 && g.sequence.counters.lost == 0)
    }

    /// `offset` ms after t0, in event time.
    private func at(_ offset: Int64) -> EventTime { EventTime(t0 + offset) }
}
