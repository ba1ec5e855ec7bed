/// A database that cannot be used, in words a person can act on. `path` is the SQLite file, or
/// the PostgreSQL URL without its password.
public enum HistoryDatabaseError: Error, Sendable, CustomStringConvertible {
    /// The database cannot be opened or created at `path` (a missing directory, permissions, not
    /// a database).
    case cannotOpen(path: String, reason: String)
    /// The database was written by a newer beacon-history (its schema has migrations this one
    /// does not know).
    case newerSchema(path: String, migrations: [String])
    /// The database holds another kind of device key (raw ids where pseudonyms are asked for, a
    /// pseudonym period that differs): mixing them would count one phone as two.
    case deviceKeysDiffer(path: String, stored: String, asked: String)
    /// The database server cannot be reached (nothing listens, a network or TLS failure).
    case unreachable(path: String, reason: String)
    /// The database server refused the login (a wrong password, an unknown role, no entry in
    /// its host-based authentication for this client).
    case loginRefused(path: String, reason: String)
    /// The disk is full: nothing of the batch was written.
    case diskFull(path: String)
    /// Another failure of the database, with its own words.
    case failed(path: String, operation: String, reason: String)

    /// What went wrong, in words, for the log and the exit message.
    public var description: String {
        switch self {
        case .cannotOpen(let path, let reason):
            return "cannot open the history database \(path): \(reason)"
        case .newerSchema(let path, let migrations):
            return "the history database \(path) was written by a newer beacon-history (migrations \(migrations.joined(separator: ", "))): use that version"
        case .deviceKeysDiffer(let path, let stored, let asked):
            return "the history database \(path) holds device keys of kind \(stored), not \(asked): keep --pseudonym-period and --store-raw-device-ids as they were, or start a new database"
        case .unreachable(let path, let reason):
            return "cannot reach the history database \(path): \(reason)"
        case .loginRefused(let path, let reason):
            return "the history database \(path) refused the login: \(reason)"
        case .diskFull(let path):
            return "the disk holding \(path) is full: nothing more can be written until space is freed"
        case .failed(let path, let operation, let reason):
            return "the history database \(path) failed to \(operation): \(reason)"
        }
    }
}
