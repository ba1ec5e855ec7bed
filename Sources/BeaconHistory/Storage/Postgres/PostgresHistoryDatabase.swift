public import Logging
import PostgresNIO

/// The history in a PostgreSQL database, through PostgresNIO: for a chain whose recorders and
/// readers share one server. The schema is migrated on a first connection of its own, which also
/// says plainly whether the server can be reached and takes the login; then a `PostgresClient`
/// (a pool that reconnects by itself after a server restart) carries the writes — one
/// transaction per batch — and the reports.
///
/// Use ``withDatabase(at:access:logger:_:)``: the client runs for the closure's lifetime, and
/// stops with it.
public final class PostgresHistoryDatabase: HistoryDatabase {
    /// The database, without its password.
    public let location: PostgresLocation
    /// Whether the database was last written under another pseudonym secret (false for reading).
    public let secretChanged: Bool
    let client: PostgresClient
    let logger: Logger

    private init(location: PostgresLocation, secretChanged: Bool, logger: Logger) {
        self.location = location
        self.secretChanged = secretChanged
        self.logger = logger
        // The pool logs each failed connection attempt at info (during an outage, many a second),
        // and warns when a query comes before its run() has begun, which a first query may. The
        // writer's own errors say when the database cannot be used; the rest are details.
        var background = logger
        if background.logLevel >= .info { background.logLevel = .error }
        client = PostgresClient(configuration: location.clientConfiguration(), backgroundLogger: background)
    }

    /// Connects to `location`, checks or migrates its schema for `access`, then runs `body` with
    /// the database while its client runs. Throws ``HistoryDatabaseError`` when the server cannot
    /// be reached, refuses the login, or holds a schema or settings that cannot be used; and what
    /// `body` throws.
    public static func withDatabase<Result: Sendable>(
        at location: PostgresLocation, access: HistoryDatabaseAccess, logger: Logger,
        _ body: (PostgresHistoryDatabase) async throws -> Result
    ) async throws -> Result {
        let secretChanged = try await prepare(location, access: access, logger: logger)
        let database = PostgresHistoryDatabase(location: location, secretChanged: secretChanged, logger: logger)
        return try await withThrowingTaskGroup(of: Void.self, returning: Result.self) { group in
            group.addTask { await database.client.run() }
            defer { group.cancelAll() }
            return try await body(database)
        }
    }

    /// The first connection: the login, the schema, the settings. Returns whether the secret changed.
    private static func prepare(_ location: PostgresLocation, access: HistoryDatabaseAccess, logger: Logger) async throws(HistoryDatabaseError) -> Bool {
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                configuration: try location.connectionConfiguration(), id: 0, logger: logger)
        } catch {
            throw PostgresProblem.opening(error, location: location)
        }
        do {
            let changed: Bool
            switch access {
            case .writing(let deviceKeys, let secretFingerprint):
                try await PostgresMigrator(location: location, logger: logger).migrate(connection)
                changed = try await PostgresSettings(location: location, logger: logger)
                    .check(connection, deviceKeys: deviceKeys, secretFingerprint: secretFingerprint)
            case .reading:
                try await PostgresMigrator(location: location, logger: logger).checkReadable(connection)
                changed = false
            }
            try? await connection.close()
            return changed
        } catch {
            try? await connection.close()
            throw PostgresProblem.problem(error, location: location, operation: "set up its schema")
        }
    }

    /// Runs `body` in one transaction; a failure says what was being done.
    func transaction<T: Sendable>(_ operation: String, _ body: (PostgresConnection) async throws -> T) async throws(HistoryDatabaseError) -> T {
        do {
            return try await client.withTransaction(logger: logger) { connection in try await body(connection) }
        } catch {
            throw PostgresProblem.problem(error, location: location, operation: operation)
        }
    }

    /// Runs `query` and decodes every row with `decode`; a failure says what was being done.
    func rows<T: Sendable>(
        _ operation: String, _ query: PostgresQuery, _ decode: (PostgresRow) throws -> T
    ) async throws(HistoryDatabaseError) -> [T] {
        do {
            var decoded: [T] = []
            for try await row in try await client.query(query, logger: logger) { decoded.append(try decode(row)) }
            return decoded
        } catch {
            throw PostgresProblem.problem(error, location: location, operation: operation)
        }
    }
}
