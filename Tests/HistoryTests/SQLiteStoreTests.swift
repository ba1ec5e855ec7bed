import BeaconCore
@testable import BeaconHistory
import Foundation
import GRDB
import Testing
import TestSupport

/// What is SQLite's own in the store, on a real file: WAL, the schema, and the refusals of a
/// file that is missing or newer. What every database does is in ``HistoryStoreTests``.
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
