import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

extension SilenceTests {
    /// The silence a gateway's run held before its break (``Coverage/silenceStart(after:since:threshold:)``):
    /// never through a hole still open when the run ended.
    @Suite("A gateway's run before a break")
    struct RunBreaks {
        let t0: Int64 = 1_790_000_000_000

        @Test("an edge restarted while a hole is open: the missing batch of the old run still carries the device, no exit before it")
        func restartWithOpenHole() throws {
            var d = Driver(try Fixture.engine { $0.exitRule = .timeout; $0.exitTimeoutSeconds = 6.5 })
            let e1: Int64 = 1_700_000_000_000, e2: Int64 = 1_700_000_100_000
            var seq: UInt64 = 0
            var t = t0
            let b = t0 + 70_000
            while t < b {  // heard 4×/s for 70 s: inside store 2
                d.batch("gw-h", sent: t + 1000, (0..<4).map { (Fixture.phone, t + Int64($0) * 250, -60) }, seq: seq, epoch: e1)
                seq += 1
                t += 1000
            }
            for k in 1...6 {  // up to b+6000
                d.batch("gw-h", sent: b + Int64(k) * 1000, [], seq: seq, epoch: e1)
                seq += 1
            }
            let missingSeq = seq  // sent b+7000, carries the phone at b+6200: swapped on the way
            seq += 1
            d.batch("gw-h", sent: b + 8000, [], seq: seq, epoch: e1)  // a hole: covered to b+6000
            #expect(!d.transitions.contains { $0.hasPrefix("exit") }, "held by the hole: 6 250 ms ≤ 6 500 ms")
            // The edge restarts 3.5 s later (a break); the watermark, b+9500, is inside the hole's wait.
            d.batch("gw-h", sent: b + 11_500, [], seq: 0, epoch: e2)
            #expect(!d.transitions.contains { $0.hasPrefix("exit") }, "exited although a batch of the old run within the timeout is still missing")
            #expect(d.batch("gw-h", sent: b + 7000, [(Fixture.phone, b + 6200, -60)], seq: missingSeq, epoch: e1) == .accepted)
            d.batch("gw-h", sent: b + 12_500, [(Fixture.phone, b + 12_000, -60)], seq: 1, epoch: e2)
            #expect(!d.transitions.contains { $0.hasPrefix("exit") }, "\(d.transitions)")
        }

        @Test("a run broken by a restart with a hole open ends at the batch before the hole")
        func brokenRunToAtRestart() {
            var g = GatewayStream()
            for i in 0...10 {
                _ = g.book(seq: UInt64(i), sent: at(Int64(i) * 1000), epoch: 1, arrival: nil, latest: nil)
            }
            _ = g.book(seq: 12, sent: at(12_000), epoch: 1, arrival: nil, latest: nil)  // seq 11 missing
            #expect(g.coverage.coveredTo(at: at(13_000)) == at(10_000))
            _ = g.book(seq: 0, sent: at(15_500), epoch: 2, arrival: nil, latest: nil)  // a restart, 3.5 s later
            #expect(g.coverage.brokenRun?.last == at(10_000), "broken run ends at \(String(describing: g.coverage.brokenRun))")
        }

        @Test("a batch lost long ago does not cut the run before a later break")
        func staleHoleCutsNoRun() throws {
            var g = GatewayStream()
            for i in Array(0...9) + Array(11...60) {  // seq 10 lost for good
                _ = g.book(seq: UInt64(i), sent: at(Int64(i) * 1000), epoch: nil, arrival: nil, latest: nil)
            }
            _ = g.book(seq: 61, sent: at(71_000), epoch: nil, arrival: nil, latest: nil)  // an 11 s stall: a break
            let since = try #require(g.coverage.run).since
            let run = g.coverage.silenceStart(after: at(20_000), since: since, threshold: EventDuration(milliseconds: 30_000))
            #expect(run.until == at(60_000), "until \(String(describing: run.until)), broken run \(String(describing: g.coverage.brokenRun))")
        }

        /// `offset` ms after t0, in event time.
        private func at(_ offset: Int64) -> EventTime { EventTime(t0 + offset) }
    }
}
