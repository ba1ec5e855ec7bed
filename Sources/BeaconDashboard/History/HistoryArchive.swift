import BeaconHistory
import Logging
import Synchronization

/// The history database `beacon-history run` writes, read only. An SQLite file is opened when it
/// is first asked for and kept open after: the recorder may start after the dashboard and create
/// the file then, so a file that cannot be opened yet is tried again at the next request; SQLite's
/// write-ahead log lets this reader work beside the recorder's writes. A PostgreSQL database is
/// connected to for each request (its schema checked, then the report's queries): history pages
/// are asked for now and then, and a connection per request needs no state to recover when the
/// server restarts.
final class HistoryArchive: Sendable {
    /// Where the history is (`--history-database`); nil when the dashboard serves no history.
    let location: HistoryDatabaseLocation?
    private let logger: Logger
    private let openedFile = Mutex<SQLiteHistoryDatabase?>(nil)

    /// The archive at `location`, not opened yet; PostgreSQL's client logs to `logger`.
    init(location: HistoryDatabaseLocation?, logger: Logger) {
        self.location = location
        self.logger = logger
    }

    /// Runs `body` with the database, opened for reading; nil when the dashboard has no history
    /// database. Throws ``HistoryDatabaseError`` when it cannot be opened (the file not made yet,
    /// the server not reachable, a newer schema), and what `body` throws.
    func withDatabase<Result: Sendable>(_ body: (any HistoryDatabase) async throws -> Result) async throws -> Result? {
        switch location {
        case nil:
            return nil
        case .sqlite(let path):
            return try await body(try file(at: path))
        case .postgres?:
            return try await location?.withDatabase(access: .reading, logger: logger, body)
        }
    }

    private func file(at path: String) throws(HistoryDatabaseError) -> SQLiteHistoryDatabase {
        try openedFile.withLock { (database: inout SQLiteHistoryDatabase?) throws(HistoryDatabaseError) -> SQLiteHistoryDatabase in
            if let database { return database }
            let new = try SQLiteHistoryDatabase(readingAt: path)
            database = new
            return new
        }
    }
}
