import BeaconCore
import Foundation
import GRDB

/// The history in one SQLite file, through GRDB: a `DatabasePool` (write-ahead log, so reports
/// read while the recorder writes), the schema's migrations applied at open, a transaction per
/// batch.
public final class SQLiteHistoryDatabase: HistoryDatabase {
    /// The database file.
    public let path: String
    /// Whether the database was last written under another pseudonym secret: the visits it left
    /// open cannot be matched to their devices (they are closed as stale).
    public let secretChanged: Bool
    let pool: DatabasePool

    /// Opens (creating it if needed) the database at `path` for writing, migrated to the current
    /// schema. `deviceKeys` is the kind of device key the writer stores (``DeviceKeying/kindName``):
    /// a database that holds another kind is refused; `secretFingerprint` is remembered
    /// (``secretChanged`` says whether it differs from the last one).
    public init(path: String, deviceKeys: String, secretFingerprint: String?) throws(HistoryDatabaseError) {
        self.path = path
        pool = try Self.openPool(path: path, readOnly: false)
        try Self.migrate(pool, path: path)
        secretChanged = try Self.checkSettings(pool, path: path, deviceKeys: deviceKeys, secretFingerprint: secretFingerprint)
    }

    /// Opens an existing database at `path` for reading only (reports).
    public init(readingAt path: String) throws(HistoryDatabaseError) {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw .cannotOpen(path: path, reason: "no such file (beacon-history run --database makes it)")
        }
        pool = try Self.openPool(path: path, readOnly: true)
        secretChanged = false
        let newer: [String]
        do {
            newer = try pool.read { db in
                let known = Set(HistorySchema.migrator.migrations)
                return try HistorySchema.migrator.appliedIdentifiers(db).filter { !known.contains($0) }.sorted()
            }
        } catch {
            throw Self.problem(error, path: path, operation: "read its schema")
        }
        guard newer.isEmpty else { throw .newerSchema(path: path, migrations: newer) }
    }

    /// A pool on `path`: WAL (GRDB's pool always is), `synchronous = NORMAL` (a committed batch
    /// survives a crash of the process; only a power cut may lose the last ones), and a busy
    /// timeout, so that a report never fails because the recorder is writing.
    private static func openPool(path: String, readOnly: Bool) throws(HistoryDatabaseError) -> DatabasePool {
        var configuration = Configuration()
        configuration.readonly = readOnly
        configuration.busyMode = .timeout(10)
        configuration.label = "beacon-history"
        if !readOnly {
            configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        }
        do {
            return try DatabasePool(path: path, configuration: configuration)
        } catch {
            throw .cannotOpen(path: path, reason: Self.reason(error))
        }
    }

    /// Applies the schema's migrations; refuses a database a newer version migrated.
    private static func migrate(_ pool: DatabasePool, path: String) throws(HistoryDatabaseError) {
        let migrator = HistorySchema.migrator
        do {
            let superseded = try pool.read { db in try migrator.hasBeenSuperseded(db) }
            guard !superseded else {
                let known = Set(migrator.migrations)
                let newer = try pool.read { db in try migrator.appliedIdentifiers(db).filter { !known.contains($0) }.sorted() }
                throw HistoryDatabaseError.newerSchema(path: path, migrations: newer)
            }
            try migrator.migrate(pool)
        } catch let error as HistoryDatabaseError {
            throw error
        } catch {
            throw Self.problem(error, path: path, operation: "migrate its schema")
        }
    }

    /// Records the kind of device key (refusing another) and the secret's fingerprint; returns
    /// whether the fingerprint changed.
    private static func checkSettings(
        _ pool: DatabasePool, path: String, deviceKeys: String, secretFingerprint: String?
    ) throws(HistoryDatabaseError) -> Bool {
        let stored: (keys: String?, fingerprint: String?)
        do {
            stored = try pool.write { db -> (String?, String?) in
                let keys = try String.fetchOne(db, sql: "SELECT value FROM history_settings WHERE key = 'device_keys'")
                let fingerprint = try String.fetchOne(db, sql: "SELECT value FROM history_settings WHERE key = 'secret_fingerprint'")
                guard keys == nil || keys == deviceKeys else { return (keys, fingerprint) }
                if keys == nil {
                    try db.execute(sql: "INSERT INTO history_settings (key, value) VALUES ('device_keys', ?)", arguments: [deviceKeys])
                }
                if let secretFingerprint {
                    try db.execute(sql: """
                        INSERT INTO history_settings (key, value) VALUES ('secret_fingerprint', ?)
                        ON CONFLICT (key) DO UPDATE SET value = excluded.value
                        """, arguments: [secretFingerprint])
                }
                return (keys, fingerprint)
            }
        } catch {
            throw Self.problem(error, path: path, operation: "read its settings")
        }
        if let keys = stored.keys, keys != deviceKeys { throw .deviceKeysDiffer(path: path, stored: keys, asked: deviceKeys) }
        return stored.fingerprint != nil && secretFingerprint != nil && stored.fingerprint != secretFingerprint
    }

    /// Runs `body` in a write transaction; a failure says what was being done.
    func write<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (Database) throws -> T) async throws(HistoryDatabaseError) -> T {
        do {
            return try await pool.write(body)
        } catch {
            throw Self.problem(error, path: path, operation: operation)
        }
    }

    /// Runs `body` on a reader; a failure says what was being done.
    func read<T: Sendable>(_ operation: String, _ body: @escaping @Sendable (Database) throws -> T) async throws(HistoryDatabaseError) -> T {
        do {
            return try await pool.read(body)
        } catch {
            throw Self.problem(error, path: path, operation: operation)
        }
    }

    /// `error` as a ``HistoryDatabaseError``: a full disk by name, anything else in its own words.
    static func problem(_ error: any Error, path: String, operation: String) -> HistoryDatabaseError {
        if let error = error as? HistoryDatabaseError { return error }
        if let error = error as? DatabaseError, error.resultCode == .SQLITE_FULL { return .diskFull(path: path) }
        return .failed(path: path, operation: operation, reason: reason(error))
    }

    /// SQLite's words for `error`.
    static func reason(_ error: any Error) -> String {
        guard let error = error as? DatabaseError else { return "\(error)" }
        return error.message ?? "\(error.resultCode)"
    }
}
