import Logging
import PostgresNIO

/// Applies ``PostgresSchema``'s migrations, each once, in one transaction under an advisory lock
/// (two recorders starting together apply each step once); refuses a database a newer
/// beacon-history migrated.
struct PostgresMigrator {
    let location: PostgresLocation
    let logger: Logger

    /// Brings the schema up to this version's.
    func migrate(_ connection: PostgresConnection) async throws {
        try await connection.withTransaction(logger: logger) { connection in
            try await connection.query(PostgresQuery(unsafeSQL: PostgresSchema.migrationLock), logger: logger)
            try await connection.query(PostgresQuery(unsafeSQL: PostgresSchema.createMigrations), logger: logger)
            let applied = try await appliedIdentifiers(connection)
            try refuseNewer(applied)
            for migration in PostgresSchema.migrations where !applied.contains(migration.identifier) {
                for statement in migration.statements {
                    try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.query("INSERT INTO history_migrations (identifier) VALUES (\(migration.identifier))", logger: logger)
                logger.info("history database: applied migration \(migration.identifier)", metadata: ["database": "\(location)"])
            }
        }
    }

    /// Checks that the schema is there and not newer than this version's, changing nothing.
    func checkReadable(_ connection: PostgresConnection) async throws {
        let rows = try await connection.query("SELECT to_regclass('history_migrations') IS NOT NULL", logger: logger)
        var exists = false
        for try await present in rows.decode(Bool.self) { exists = present }
        guard exists else {
            throw HistoryDatabaseError.cannotOpen(
                path: location.description, reason: "it holds no history yet (beacon-history run --database URL makes its schema)")
        }
        try refuseNewer(try await appliedIdentifiers(connection))
    }

    private func appliedIdentifiers(_ connection: PostgresConnection) async throws -> Set<String> {
        var applied: Set<String> = []
        for try await identifier in try await connection.query("SELECT identifier FROM history_migrations", logger: logger).decode(String.self) {
            applied.insert(identifier)
        }
        return applied
    }

    private func refuseNewer(_ applied: Set<String>) throws(HistoryDatabaseError) {
        let known = Set(PostgresSchema.migrations.map(\.identifier))
        let newer = applied.subtracting(known).sorted()
        guard newer.isEmpty else { throw .newerSchema(path: location.description, migrations: newer) }
    }
}
