import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// Each gateway's stream of batches: duplicates, loss and restart gaps counted, progress resumed
/// from a snapshot, edge restarts told apart by their epoch.
@Suite("Engine: gateway streams — duplicates, loss, resumes and epochs")
struct GatewayStreamTests {
    let t0: Int64 = 1_790_000_000_000

    @Test("duplicated batches are ignored and gaps are counted as loss")
    func duplicatesAndLoss() throws {
        var d = Driver(try Fixture.engine())
        #expect(d.batch("gw-a", sent: t0 + 1000, [(Fixture.phone, t0 + 100, -60)], seq: 1) == .accepted)
        #expect(d.batch("gw-a", sent: t0 + 1000, [(Fixture.phone, t0 + 100, -60)], seq: 1) == .duplicate)
        #expect(d.transitions.isEmpty, "a duplicate must not count as a second sighting")
        #expect(d.batch("gw-a", sent: t0 + 4000, [], seq: 4) == .accepted)
        var counters = d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }!
        #expect(counters.lost == 2 && counters.duplicates == 1)
        // Seq 2 arrives late: accepted, no longer lost.
        #expect(d.batch("gw-a", sent: t0 + 2000, [], seq: 2) == .accepted)
        counters = d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }!
        #expect(counters.lost == 1)
        // An edge restart counts from 0 again with a later `sent`: accepted.
        #expect(d.batch("gw-a", sent: t0 + 9000, [], seq: 0) == .accepted)
    }

    @Test("resumed from a snapshot: redeliveries are duplicates, the first gap is a restart gap, later gaps are loss")
    func resumedGatewayProgress() throws {
        var d = Driver(try Fixture.engine())
        let gw = try GatewayID("gw-a")
        #expect(d.engine.resumeGateways([GatewayResumePoint(id: gw, seq: 10, sent: t0 + 10_000, epoch: nil), GatewayResumePoint(id: try GatewayID("gw-nowhere"), seq: 3, sent: t0, epoch: nil)]) == 1)
        // A QoS 1 redelivery of what the previous run processed.
        #expect(d.batch("gw-a", sent: t0 + 9000, [], seq: 9) == .duplicate)
        #expect(d.batch("gw-a", sent: t0 + 10_000, [], seq: 10) == .duplicate)
        // Seq 11–13 went with the previous process (processed after its snapshot, or lost).
        #expect(d.batch("gw-a", sent: t0 + 14_000, [], seq: 14) == .accepted)
        var counters = d.engine.gatewayCounters().first { $0.id == gw }!
        #expect(counters.restartGap == 3 && counters.lost == 0)
        #expect(d.batch("gw-a", sent: t0 + 17_000, [], seq: 17) == .accepted)
        counters = d.engine.gatewayCounters().first { $0.id == gw }!
        #expect(counters.restartGap == 3 && counters.lost == 2)
        #expect(d.engine.gatewayProgress().first { $0.id == gw }.map { [$0.seq] } == [17])

        // An edge that restarted while the aggregator was away counts from 0 again: no gap at all.
        var e = Driver(try Fixture.engine())
        e.engine.resumeGateways([GatewayResumePoint(id: gw, seq: 500, sent: t0 + 500_000, epoch: nil)])
        #expect(e.batch("gw-a", sent: t0 + 520_000, [], seq: 0) == .accepted)
        let restarted = e.engine.gatewayCounters().first { $0.id == gw }!
        #expect(restarted.restartGap == 0 && restarted.lost == 0)
    }

    @Test("an edge restarted within a second is told apart by its epoch: its batches are new, the old run's late ones still count")
    func edgeEpochs() throws {
        var d = Driver(try Fixture.engine())
        let first: Int64 = 1_700_000_000_000, second: Int64 = 1_700_000_007_500
        for seq in 0...7 { #expect(d.batch("gw-a", sent: t0 + Int64(seq) * 1000, [], seq: UInt64(seq), epoch: first) == .accepted) }
        // Restarted at once: seq 0 again, sent only 500 ms after the old run's last batch.
        #expect(d.batch("gw-a", sent: t0 + 7500, [(Fixture.phone, t0 + 7400, -60)], seq: 0, epoch: second) == .accepted)
        #expect(d.batch("gw-a", sent: t0 + 8500, [], seq: 1, epoch: second) == .accepted)
        #expect(d.batch("gw-a", sent: t0 + 8500, [], seq: 1, epoch: second) == .duplicate)
        // The old run's seq 5 redelivered by a bridge: a repeat; its missing seq 9 arriving late: new.
        #expect(d.batch("gw-a", sent: t0 + 5000, [], seq: 5, epoch: first) == .duplicate)
        #expect(d.batch("gw-a", sent: t0 + 8000, [], seq: 8, epoch: first) == .accepted)
        let counters = d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }!
        #expect(counters.lost == 0 && counters.duplicates == 2)
        #expect(d.engine.gatewayProgress().first?.epoch == second)

        // Without epochs the same restart is only a guess, and here it guesses wrong: the new run
        // is not taken for a restart. Its first batches reuse `seq`s already seen, but with another
        // `sent` they are no repeats: decided, apart from the run. This is why edges send an epoch.
        var old = Driver(try Fixture.engine())
        for seq in 0...7 { old.batch("gw-a", sent: t0 + Int64(seq) * 1000, [], seq: UInt64(seq)) }
        #expect(old.batch("gw-a", sent: t0 + 7500, [], seq: 0) == .apart)
        #expect(old.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }?.seqAnomalies == 1)
    }

    @Test("a gateway clock that jumps back does not make a restarted edge's batches repeats")
    func epochGoingBack() throws {
        var d = Driver(try Fixture.engine())
        for seq in 0...3 { d.batch("gw-a", sent: t0 + Int64(seq) * 1000, [], seq: UInt64(seq), epoch: 2_000_000_000_000) }
        #expect(d.batch("gw-a", sent: t0 + 4000, [], seq: 0, epoch: 1_000_000_000_000) == .accepted)
        #expect(d.batch("gw-a", sent: t0 + 5000, [], seq: 1, epoch: 1_000_000_000_000) == .accepted)
        #expect(d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" }!.lost == 0)
    }

    @Test("a crafted stream of restarts with extreme seq values counts no loss, only anomalies, and overflows nothing")
    func lostOverflow() throws {
        var d = Driver(try Fixture.engine())
        let top: UInt64 = (1 << 53) - 1
        for k in 0..<2100 {
            d.batch("gw-h", sent: t0 + Int64(k) * 10, [], seq: 0, epoch: t0 + Int64(k))
            d.batch("gw-h", sent: t0 + Int64(k) * 10 + 1, [], seq: top, epoch: t0 + Int64(k))
        }
        let gh = d.engine.gateways[d.engine.chain.gatewayIndex[try GatewayID("gw-h")]!]
        // Each jump to 2^53 − 1 is far beyond what 1 ms of `sent` allows an edge to drop.
        #expect(gh.sequence.counters.lost == 0 && gh.sequence.counters.seqAnomalies == 2100)
    }
}
