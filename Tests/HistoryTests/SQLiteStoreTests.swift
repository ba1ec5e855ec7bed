import BeaconCore
@testable import BeaconHistory
import Foundation
import GRDB
import Testing
import TestSupport

/// The SQLite store on a real file: WAL, the schema, idempotent writes, more certain closings,
/// open visits read back, retention, and the refusals.
@Suite struct SQLiteStoreTests {
    static func database(_ name: String = "history.sqlite", keys: String = "raw") throws -> (SQLiteHistoryDatabase, String) {
        let path = try TestDirectory.make("history-db").appendingPathComponent(name).path
        return (try SQLiteHistoryDatabase(path: path, deviceKeys: keys, secretFingerprint: nil), path)
    }

    @Test func aFileInWALModeWithTheSchema() async throws {
        let (database, path) = try Self.database()
        let mode = try await database.pool.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(mode == "wal")
        let tables = try await database.pool.read { db in
            try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
        }
        #expect(tables.isSuperset(of: ["store_visits", "section_visits", "store_names", "section_names", "history_settings"]))
        let indexes = try await database.pool.read { db in try String.fetchSet(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index'") }
        #expect(indexes.isSuperset(of: ["store_visits_by_store", "store_visits_by_enter", "store_visits_open", "section_visits_by_store"]))
        // Opening again applies nothing twice.
        _ = try SQLiteHistoryDatabase(path: path, deviceKeys: "raw", secretFingerprint: nil)
    }

    @Test func writesAreIdempotentAndTheMoreCertainClosingWins() async throws {
        let (database, _) = try Self.database()
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
        var batch = HistoryBatch()
        batch.storeVisits = [open, unknown, open]
        try await database.write(batch)
        var visits = try await database.storeVisits(stores: [], began: 0..<100_000)
        #expect(visits == [unknown])
        batch.storeVisits = [exit, stale, open]
        try await database.write(batch)
        visits = try await database.storeVisits(stores: [], began: 0..<100_000)
        #expect(visits == [exit])
    }

    @Test func openVisitsComeBackWithTheirSection() async throws {
        let (database, _) = try Self.database()
        var batch = HistoryBatch()
        batch.storeVisits = [
            StoreVisitRecord(device: "d1", store: 101, enter: 1_000, opening: .enter, lastSeen: 9_000),
            StoreVisitRecord(device: "d2", store: 102, enter: 1_000, exit: 2_000, opening: .enter, closing: .exit, lastSeen: 2_000),
        ]
        let section = SectionRef(store: 101, section: 3)
        batch.sectionVisits = [
            SectionVisitRecord(device: "d1", section: SectionRef(store: 101, section: 2), enter: 1_000, exit: 5_000, opening: .enter, closing: .exit),
            SectionVisitRecord(device: "d1", section: section, enter: 5_000, fromSection: 2, opening: .enter),
        ]
        try await database.write(batch)
        let open = try await database.openVisits()
        #expect(open == [OpenVisit(
            device: "d1", store: 101, enter: 1_000, opening: .enter, lastSeen: 9_000,
            section: OpenSection(section: 3, enter: 5_000, fromSection: 2, opening: .enter))])
    }

    @Test func retentionDeletesByEnterTime() async throws {
        let (database, _) = try Self.database()
        var batch = HistoryBatch()
        batch.storeVisits = [1_000, 2_000, 3_000].map { StoreVisitRecord(device: "d", store: 101, enter: $0, opening: .enter, lastSeen: $0) }
        batch.sectionVisits = [SectionVisitRecord(device: "d", section: SectionRef(store: 101, section: 1), enter: 1_500, opening: .enter)]
        try await database.write(batch)
        #expect(try await database.deleteVisits(before: 2_500) == 3)
        #expect(try await database.storeVisits(stores: [], began: 0..<10_000).map(\.enter) == [3_000])
        #expect(try await database.sectionVisits(stores: [], began: 0..<10_000).isEmpty)
    }

    @Test func storesAreFiltered() async throws {
        let (database, _) = try Self.database()
        var batch = HistoryBatch()
        batch.storeVisits = [101, 102, 103].map { StoreVisitRecord(device: "d", store: $0, enter: 1_000, opening: .enter, lastSeen: 1_000) }
        batch.storeNames = [101: "Lyon", 102: "Villeurbanne"]
        batch.sectionNames = [SectionRef(store: 101, section: 1): "Entrance"]
        try await database.write(batch)
        #expect(try await database.storeVisits(stores: [101, 103], began: 0..<10_000).map(\.store) == [101, 103])
        #expect(try await database.storeVisits(stores: [], began: 0..<10_000).count == 3)
        let names = try await database.names()
        #expect(names.stores == [101: "Lyon", 102: "Villeurbanne"])
        #expect(names.name(of: SectionRef(store: 101, section: 1)) == "Entrance")
    }

    @Test func anotherKindOfDeviceKeyIsRefused() throws {
        let (_, path) = try Self.database(keys: "pseudonym-day")
        #expect(throws: HistoryDatabaseError.self) { try SQLiteHistoryDatabase(path: path, deviceKeys: "raw", secretFingerprint: nil) }
        #expect(throws: HistoryDatabaseError.self) { try SQLiteHistoryDatabase(path: path, deviceKeys: "pseudonym-week", secretFingerprint: nil) }
        let again = try SQLiteHistoryDatabase(path: path, deviceKeys: "pseudonym-day", secretFingerprint: "f1")
        #expect(!again.secretChanged)
        #expect(try SQLiteHistoryDatabase(path: path, deviceKeys: "pseudonym-day", secretFingerprint: "f2").secretChanged)
    }

    @Test func aMissingFileOrDirectoryIsSaidPlainly() throws {
        let directory = try TestDirectory.make("history-db").path
        do {
            _ = try SQLiteHistoryDatabase(readingAt: "\(directory)/absent.sqlite")
            Issue.record("opened a database that does not exist")
        } catch {
            #expect("\(error)".contains("absent.sqlite"))
            #expect("\(error)".contains("no such file"))
        }
        do {
            _ = try SQLiteHistoryDatabase(path: "\(directory)/no/such/dir/h.sqlite", deviceKeys: "raw", secretFingerprint: nil)
            Issue.record("created a database in a directory that does not exist")
        } catch {
            #expect("\(error)".contains("cannot open the history database"))
        }
    }

    @Test func aDatabaseFromANewerVersionIsRefused() async throws {
        let (database, path) = try Self.database()
        try await database.pool.write { db in
            try db.execute(sql: "INSERT INTO grdb_migrations (identifier) VALUES ('9 from the future')")
        }
        #expect(throws: HistoryDatabaseError.self) { try SQLiteHistoryDatabase(readingAt: path) }
        #expect(throws: HistoryDatabaseError.self) { try SQLiteHistoryDatabase(path: path, deviceKeys: "raw", secretFingerprint: nil) }
    }
}
