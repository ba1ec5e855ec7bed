import BeaconCore
@testable import BeaconHistory
import Testing
import TestSupport

/// What ``HistoryDatabase`` promises, on every database behind it — a real SQLite file and a
/// real PostgreSQL server: idempotent writes, more certain closings, open visits read back,
/// retention, the store filter and the names, the kind of device key kept.
@Suite("History: the store, on SQLite and PostgreSQL", .hangLimit)
struct HistoryStoreTests {
    @Test(arguments: StoreKind.available)
    func writesAreIdempotentAndTheMoreCertainClosingWins(_ kind: StoreKind) async throws {
        let open = StoreVisitRecord(device: "d1", store: 101, enter: 1_000, opening: .enter, lastSeen: 1_000)
        var unknown = open
        unknown.exit = 30_000
        unknown.closing = .unknown
        unknown.lastSeen = 30_000
        var exit = open
        exit.exit = 70_000
        exit.closing = .exit
        exit.lastSeen = 70_000
        var stale = open
        stale.exit = 5_000
        stale.closing = .stale
        try await StoreFixture.make(kind).withDatabase { database in
            var batch = HistoryBatch()
            batch.storeVisits = [open, unknown, open]
            try await database.write(batch)
            #expect(try await database.storeVisits(stores: [], began: 0..<100_000) == [unknown])
            batch.storeVisits = [exit, stale, open]
            try await database.write(batch)
            #expect(try await database.storeVisits(stores: [], began: 0..<100_000) == [exit])
            // Each in a batch of its own: the same end.
            for record in [open, stale, unknown, open] {
                var single = HistoryBatch()
                single.storeVisits = [record]
                try await database.write(single)
            }
            #expect(try await database.storeVisits(stores: [], began: 0..<100_000) == [exit])
        }
    }

    /// Section visits: one written twice in a batch keeps the first `from_section` and takes the
    /// more certain closing, as the rows written one by one would.
    @Test(arguments: StoreKind.available)
    func sectionVisitsFoldAsTheyWouldOneByOne(_ kind: StoreKind) async throws {
        let section = SectionRef(store: 101, section: 2)
        let open = SectionVisitRecord(device: "d1", section: section, enter: 1_000, opening: .enter)
        var from = open
        from.fromSection = 1
        var superseded = from
        superseded.exit = 9_000
        superseded.closing = .superseded
        superseded.fromSection = 4
        var exit = open
        exit.exit = 8_000
        exit.closing = .exit
        try await StoreFixture.make(kind).withDatabase { database in
            var batch = HistoryBatch()
            batch.sectionVisits = [open, from, superseded, open]
            try await database.write(batch)
            var expected = superseded
            expected.fromSection = 1
            #expect(try await database.sectionVisits(stores: [], began: 0..<100_000) == [expected])
            batch.sectionVisits = [exit, superseded]
            try await database.write(batch)
            expected.exit = 8_000
            expected.closing = .exit
            #expect(try await database.sectionVisits(stores: [], began: 0..<100_000) == [expected])
        }
    }

    @Test(arguments: StoreKind.available)
    func openVisitsComeBackWithTheirSection(_ kind: StoreKind) async throws {
        var batch = HistoryBatch()
        batch.storeVisits = [
            StoreVisitRecord(device: "d1", store: 101, enter: 1_000, opening: .enter, lastSeen: 9_000),
            StoreVisitRecord(device: "d2", store: 102, enter: 1_000, exit: 2_000, opening: .enter, closing: .exit, lastSeen: 2_000),
        ]
        batch.sectionVisits = [
            SectionVisitRecord(device: "d1", section: SectionRef(store: 101, section: 2), enter: 1_000, exit: 5_000, opening: .enter, closing: .exit),
            SectionVisitRecord(device: "d1", section: SectionRef(store: 101, section: 3), enter: 5_000, fromSection: 2, opening: .enter),
        ]
        let open = try await StoreFixture.make(kind).withDatabase { database in
            try await database.write(batch)
            return try await database.openVisits()
        }
        #expect(open == [OpenVisit(
            device: "d1", store: 101, enter: 1_000, opening: .enter, lastSeen: 9_000,
            section: OpenSection(section: 3, enter: 5_000, fromSection: 2, opening: .enter))])
    }

    @Test(arguments: StoreKind.available)
    func retentionDeletesByEnterTime(_ kind: StoreKind) async throws {
        var batch = HistoryBatch()
        batch.storeVisits = [1_000, 2_000, 3_000].map { StoreVisitRecord(device: "d", store: 101, enter: $0, opening: .enter, lastSeen: $0) }
        batch.sectionVisits = [SectionVisitRecord(device: "d", section: SectionRef(store: 101, section: 1), enter: 1_500, opening: .enter)]
        try await StoreFixture.make(kind).withDatabase { database in
            try await database.write(batch)
            #expect(try await database.deleteVisits(before: 2_500) == 3)
            #expect(try await database.storeVisits(stores: [], began: 0..<10_000).map(\.enter) == [3_000])
            #expect(try await database.sectionVisits(stores: [], began: 0..<10_000).isEmpty)
            #expect(try await database.deleteVisits(before: 2_500) == 0)
        }
    }

    @Test(arguments: StoreKind.available)
    func storesAreFilteredAndNamed(_ kind: StoreKind) async throws {
        var batch = HistoryBatch()
        batch.storeVisits = [103, 101, 102].map { StoreVisitRecord(device: "d", store: $0, enter: 1_000, opening: .enter, lastSeen: 1_000) }
        batch.storeNames = [101: "Lyon", 102: "Villeurbanne"]
        batch.sectionNames = [SectionRef(store: 101, section: 1): "Entrance"]
        try await StoreFixture.make(kind).withDatabase { database in
            try await database.write(batch)
            #expect(try await database.storeVisits(stores: [101, 103], began: 0..<10_000).map(\.store) == [101, 103])
            #expect(try await database.storeVisits(stores: [], began: 0..<10_000).map(\.store) == [101, 102, 103])
            #expect(try await database.storeVisits(stores: [], began: 1_001..<10_000).isEmpty)
            let names = try await database.names()
            #expect(names.stores == [101: "Lyon", 102: "Villeurbanne"])
            #expect(names.name(of: SectionRef(store: 101, section: 1)) == "Entrance")
        }
    }

    @Test(arguments: StoreKind.available)
    func anotherKindOfDeviceKeyIsRefused(_ kind: StoreKind) async throws {
        let fixture = try await StoreFixture.make(kind)
        try await fixture.withDatabase(.writing(deviceKeys: "pseudonym-day", secretFingerprint: "f1")) { _ in }
        for other in ["raw", "pseudonym-week"] {
            await #expect(throws: HistoryDatabaseError.self) {
                try await fixture.withDatabase(.writing(deviceKeys: other, secretFingerprint: nil)) { _ in }
            }
        }
        #expect(try await fixture.withDatabase(.writing(deviceKeys: "pseudonym-day", secretFingerprint: "f1")) { $0.secretChanged } == false)
        #expect(try await fixture.withDatabase(.writing(deviceKeys: "pseudonym-day", secretFingerprint: "f2")) { $0.secretChanged })
        #expect(try await fixture.withDatabase(.reading) { $0.secretChanged } == false)
    }

    /// A report reads what the writer wrote, through a reader of its own.
    @Test(arguments: StoreKind.available)
    func aReaderSeesTheWritersVisits(_ kind: StoreKind) async throws {
        let fixture = try await StoreFixture.make(kind)
        var batch = HistoryBatch()
        batch.storeVisits = [StoreVisitRecord(device: "d", store: 101, enter: 1_000, exit: 4_000, opening: .enter, closing: .exit, lastSeen: 4_000)]
        try await fixture.withDatabase { database in try await database.write(batch) }
        let read = try await fixture.withDatabase(.reading) { database in try await database.storeVisits(stores: [101], began: 0..<10_000) }
        #expect(read == batch.storeVisits)
    }
}
