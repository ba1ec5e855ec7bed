import BeaconHistory
import Synchronization

/// The history database `beacon-history run` writes, opened for reading only when it is first
/// asked for and kept open after: the recorder may start after the dashboard and create the file
/// then, so a file that cannot be opened yet is tried again at the next request. SQLite's
/// write-ahead log lets this reader work beside the recorder's writes.
final class HistoryArchive: Sendable {
    /// The database file (`--history-database`); nil when the dashboard serves no history.
    let path: String?
    private let opened = Mutex<SQLiteHistoryDatabase?>(nil)

    /// The archive of the file at `path`, not opened yet.
    init(path: String?) {
        self.path = path
    }

    /// The database at `path`, opened on first use; nil when no path was given. Throws when the
    /// file does not exist, cannot be read, or was written by a newer beacon-history.
    func database() throws(HistoryDatabaseError) -> SQLiteHistoryDatabase? {
        guard let path else { return nil }
        return try opened.withLock { (database: inout SQLiteHistoryDatabase?) throws(HistoryDatabaseError) -> SQLiteHistoryDatabase in
            if let database { return database }
            let new = try SQLiteHistoryDatabase(readingAt: path)
            database = new
            return new
        }
    }
}
