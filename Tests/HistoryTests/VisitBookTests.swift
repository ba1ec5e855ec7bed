import BeaconCore
@testable import BeaconHistory
import BeaconWire
import Testing

/// The visit logic on hand-made event sequences: what a database holds after them.
@Suite struct VisitBookTests {
    /// One visit as the aggregator publishes it: store and first section enter, a move, exits.
    static let walk: [RegionEvent] = [
        Wire.enter("a", 101, at: 1_000, seq: 1),
        Wire.enter("a", 101, 1, at: 1_000, seq: 2),
        Wire.exit("a", 101, 1, at: 61_000, dwell: 60_000, seq: 3),
        Wire.enter("a", 101, 2, at: 61_000, seq: 4, from: 1),
        Wire.exit("a", 101, 2, at: 181_000, dwell: 120_000, seq: 6),
        Wire.exit("a", 101, at: 181_000, dwell: 180_000, seq: 7),
    ]

    @Test func aWalkIsOneStoreVisitAndTwoSectionVisits() {
        var recording = Recording()
        recording.apply(Self.walk)
        #expect(recording.ledger.storeVisits == ["101 1000-181000 exit"])
        #expect(recording.ledger.sectionVisits == ["101/1 1000-61000 exit", "101/2 61000-181000 exit from 1"])
        #expect(recording.book.openVisitCount == 0)
    }

    @Test func repeatsChangeNothing() {
        var once = Recording()
        once.apply(Self.walk)
        var twice = Recording()
        // Each event twice in a row, then the whole walk again (a redelivered backlog).
        twice.apply(Self.walk.flatMap { [$0, $0] } + Self.walk)
        #expect(twice.ledger.storeVisits == once.ledger.storeVisits)
        #expect(twice.ledger.sectionVisits == once.ledger.sectionVisits)
        #expect(twice.book.counters.repeats == Self.walk.count * 2)
    }

    @Test func aRepeatAfterTheWindowStillCountsNoVisitTwice() {
        var recording = Recording()
        recording.apply(Self.walk)
        // Long after: the repeat filter has forgotten, the visit's identity has not.
        recording.apply([Wire.enter("b", 101, at: 10_000_000, seq: 1)])
        recording.apply(Self.walk)
        #expect(recording.ledger.storeVisits == ["101 1000-181000 exit", "101 10000000-open "])
        #expect(recording.ledger.sectionVisits == ["101/1 1000-61000 exit", "101/2 61000-181000 exit from 1"])
    }

    @Test func storesOutOfOrder() {
        // The device leaves 101 for 102; 102's aggregator publishes before 101's exit arrives.
        var recording = Recording()
        recording.apply([
            Wire.enter("a", 101, at: 1_000, seq: 1), Wire.enter("a", 101, 1, at: 1_000, seq: 2),
            Wire.enter("a", 102, at: 50_000, seq: 1), Wire.enter("a", 102, 3, at: 50_000, seq: 2),
            Wire.exit("a", 101, 1, at: 40_000, dwell: 39_000, seq: 3), Wire.exit("a", 101, at: 40_000, dwell: 39_000, seq: 4),
        ])
        #expect(recording.ledger.storeVisits == ["101 1000-40000 exit", "102 50000-open "])
        #expect(recording.ledger.sectionVisits == ["101/1 1000-40000 exit", "102/3 50000-open "])
    }

    @Test func aMissingExitIsClosedByTheOutsideState() {
        var recording = Recording()
        recording.apply([Wire.enter("a", 101, at: 1_000, seq: 1), Wire.enter("a", 101, 2, at: 1_000, seq: 2)])
        recording.apply(Wire.state("a", .outside, 101, 2, since: 90_000, seq: 5))
        #expect(recording.ledger.storeVisits == ["101 1000-90000 outside"])
        #expect(recording.ledger.sectionVisits == ["101/2 1000-90000 outside"])
        // Its exit coming after all changes nothing (the same time, as certain).
        recording.apply([Wire.exit("a", 101, 2, at: 90_000, dwell: 89_000, seq: 3), Wire.exit("a", 101, at: 90_000, dwell: 89_000, seq: 4)])
        #expect(recording.ledger.storeVisits == ["101 1000-90000 outside"])
    }

    @Test func anUnknownStateClosesAndALateExitCorrects() {
        var recording = Recording()
        recording.apply([Wire.enter("a", 101, at: 1_000, seq: 1), Wire.enter("a", 101, 2, at: 1_000, seq: 2)])
        recording.apply(Wire.state("a", .unknown, 101, 2, since: 30_000, storeSince: 1_000, sectionSince: 1_000, seq: 3))
        #expect(recording.ledger.storeVisits == ["101 1000-30000 unknown"])
        // The gateways come back: still inside, the same visit; then it really leaves.
        recording.apply(Wire.state("a", .inside, 101, 2, since: 50_000, storeSince: 1_000, sectionSince: 1_000, seq: 4))
        recording.apply([Wire.exit("a", 101, 2, at: 70_000, dwell: 69_000, seq: 5), Wire.exit("a", 101, at: 70_000, dwell: 69_000, seq: 6)])
        #expect(recording.ledger.storeVisits == ["101 1000-70000 exit"])
        #expect(recording.ledger.sectionVisits == ["101/2 1000-70000 exit"])
    }

    @Test func anInsideStateOpensWhatWasNeverSeen() {
        // Listening from after the enters: the retained state names the visit and its section.
        var recording = Recording()
        recording.apply(Wire.state("a", .inside, 101, 3, since: 5_000, storeSince: 1_000, sectionSince: 5_000, seq: 9))
        #expect(recording.ledger.storeVisits == ["101 1000-open "])
        #expect(recording.ledger.sectionVisits == ["101/3 5000-open "])
        // The same state again (every resubscription brings it) opens nothing more.
        recording.apply(Wire.state("a", .inside, 101, 3, since: 5_000, storeSince: 1_000, sectionSince: 5_000, seq: 9))
        #expect(recording.ledger.stores.count == 1)
        #expect(recording.ledger.sections.count == 1)
    }

    @Test func anOlderStateIsIgnored() {
        var recording = Recording()
        recording.apply([Wire.enter("a", 101, at: 1_000, seq: 5)])
        recording.apply(Wire.state("a", .outside, 101, since: 500, seq: 3))
        #expect(recording.ledger.storeVisits == ["101 1000-open "])
        #expect(recording.book.counters.outOfDate == 1)
    }

    @Test func anInsideStateElsewhereClosesTheOldStore() {
        var recording = Recording()
        recording.apply([Wire.enter("a", 101, at: 1_000, seq: 1)])
        recording.apply(Wire.state("a", .inside, 102, 1, since: 60_000, storeSince: 60_000, sectionSince: 60_000, seq: 2))
        #expect(recording.ledger.storeVisits == ["101 1000-60000 elsewhere", "102 60000-open "])
        // 101's exit, late, is more certain.
        recording.apply([Wire.exit("a", 101, at: 45_000, dwell: 44_000, seq: 3)])
        #expect(recording.ledger.storeVisits == ["101 1000-45000 exit", "102 60000-open "])
    }

    @Test func lostEventsAreReconstructedFromDwell() {
        var recording = Recording()
        recording.apply([Wire.enter("a", 101, at: 1_000, seq: 1)])
        // Its exit and the next enter were lost; the next exit says when that visit began.
        recording.apply([Wire.enter("a", 101, 2, at: 2_000, seq: 2), Wire.exit("a", 101, at: 500_000, dwell: 100_000, seq: 9)])
        #expect(recording.ledger.storeVisits == ["101 1000-2000 superseded", "101 400000-500000 exit"])
        // An exit of a visit never seen at all.
        recording.apply([Wire.exit("b", 101, at: 90_000, dwell: 30_000, seq: 4)])
        #expect(recording.ledger.storeVisits.contains("101 60000-90000 exit"))
    }

    @Test func aVisitWithoutNewsIsClosedAsStale() {
        var limits = VisitBook.Limits()
        limits.staleAfter = 3_600_000
        var recording = Recording(limits: limits)
        recording.apply([Wire.enter("a", 101, at: 1_000, seq: 1), Wire.enter("a", 101, 4, at: 2_000, seq: 2)])
        recording.apply([Wire.enter("b", 101, at: 3_000_000, seq: 1)])
        recording.closeStale()
        #expect(recording.ledger.storeVisits == ["101 1000-open ", "101 3000000-open "])
        recording.apply([Wire.enter("b", 102, at: 4_000_000, seq: 9)])
        recording.closeStale()
        #expect(recording.ledger.storeVisits == ["101 1000-2000 stale", "101 3000000-open ", "102 4000000-open "])
        #expect(recording.ledger.sectionVisits == ["101/4 2000-2000 stale"])
    }

    @Test(arguments: [PseudonymPeriod.day, .week])
    func aRestartTakesBackTheOpenVisits(period: PseudonymPeriod) {
        let keying = DeviceKeying.pseudonyms(Pseudonymizer(secret: testSecret, period: period))
        var first = Recording(keying: keying)
        // A visit crossing midnight UTC: its key is the enter day's.
        let evening: Int64 = 1_764_201_000_000
        first.apply([Wire.enter("a", 101, at: evening, seq: 1), Wire.enter("a", 101, 2, at: evening, seq: 2)])
        var second = Recording(keying: keying)
        second.ledger = first.ledger
        second.book.restore(first.ledger.openVisits)
        #expect(second.book.openVisitCount == 1)
        let exit = evening + 3_600_000
        second.apply([Wire.exit("a", 101, 2, at: exit, dwell: 3_600_000, seq: 3), Wire.exit("a", 101, at: exit, dwell: 3_600_000, seq: 4)])
        #expect(second.ledger.storeVisits == ["101 \(evening)-\(exit) exit"])
        #expect(second.ledger.sectionVisits == ["101/2 \(evening)-\(exit) exit"])
        #expect(second.book.openVisitCount == 0)
    }

    @Test func devicesAreStoredAsPseudonyms() {
        let keying = DeviceKeying.pseudonyms(Pseudonymizer(secret: testSecret, period: .day))
        var recording = Recording(keying: keying)
        recording.apply(Self.walk)
        let stored = Set(recording.ledger.stores.keys.map(\.device)).union(recording.ledger.sections.keys.map(\.device))
        #expect(stored.count == 1)
        #expect(stored.first?.count == 32)
        #expect(stored.first?.contains("1000-a") == false)
    }
}
