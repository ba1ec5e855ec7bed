public import Logging

extension HistoryDatabaseLocation {
    /// Opens the database here for `access` and runs `body` with it; for PostgreSQL, its client
    /// runs for `body`'s lifetime. Throws ``HistoryDatabaseError`` when the database cannot be
    /// used, and what `body` throws.
    public func withDatabase<Result: Sendable>(
        access: HistoryDatabaseAccess, logger: Logger, _ body: (any HistoryDatabase) async throws -> Result
    ) async throws -> Result {
        switch self {
        case .sqlite(let path):
            switch access {
            case .writing(let deviceKeys, let fingerprint):
                return try await body(try SQLiteHistoryDatabase(path: path, deviceKeys: deviceKeys, secretFingerprint: fingerprint))
            case .reading:
                return try await body(try SQLiteHistoryDatabase(readingAt: path))
            }
        case .postgres(let location):
            return try await PostgresHistoryDatabase.withDatabase(at: location, access: access, logger: logger) { try await body($0) }
        }
    }
}
