import BeaconCore
@testable import BeaconHistory
import BrokerHarness
import Logging
import PostgresNIO
import Testing
import TestSupport

/// What is PostgreSQL's own in the store, on a real server: the schema and its migrations table,
/// a newer or missing schema refused, and each way a server can fail to be usable — unreachable,
/// a refused login, a database or grants missing, a restart — as a clear error that never shows
/// the password. What every database does is in ``HistoryStoreTests``.
@Suite("History: the store on PostgreSQL", .enabled(if: SharedPostgres.isInstalled, SharedPostgres.skipReason), .hangLimit)
struct PostgresStoreTests {
    static let logger = Logger(label: "beaconnet.tests.history")

    /// A fresh database on the shared server, and its location.
    static func fresh() async throws -> (server: PostgresServer, name: String, location: PostgresLocation) {
        let database = try await SharedPostgres.database()
        return (database.server, database.name, try PostgresLocation(url: database.url))
    }

    /// Opens `location` for `access` and returns the error it throws (nil when it opens).
    static func failure(_ location: PostgresLocation, _ access: HistoryDatabaseAccess = .reading) async -> HistoryDatabaseError? {
        do {
            try await PostgresHistoryDatabase.withDatabase(at: location, access: access, logger: logger) { _ in }
            return nil
        } catch let error as HistoryDatabaseError {
            return error
        } catch {
            Issue.record("not a HistoryDatabaseError: \(error)")
            return nil
        }
    }

    /// The names a query's first column gives.
    static func strings(_ database: PostgresHistoryDatabase, _ query: PostgresQuery) async throws -> Set<String> {
        var names: Set<String> = []
        for try await name in try await database.client.query(query).decode(String.self) { names.insert(name) }
        return names
    }

    @Test func theSchemaItsIndexesAndItsMigrations() async throws {
        let (_, _, location) = try await Self.fresh()
        let writing = HistoryDatabaseAccess.writing(deviceKeys: "raw", secretFingerprint: nil)
        for _ in 0..<2 {  // opening again applies nothing twice
            try await PostgresHistoryDatabase.withDatabase(at: location, access: writing, logger: Self.logger) { database in
                let tables = try await Self.strings(database, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
                #expect(tables == ["store_visits", "section_visits", "store_names", "section_names", "history_settings", "history_migrations"])
                let indexes = try await Self.strings(database, "SELECT indexname FROM pg_indexes WHERE schemaname = 'public'")
                #expect(indexes.isSuperset(of: [
                    "store_visits_by_store", "store_visits_by_enter", "store_visits_open", "section_visits_by_store", "section_visits_by_enter",
                    "section_visits_open",
                ]))
                var migrations: [String] = []
                for try await identifier in try await database.client.query("SELECT identifier FROM history_migrations").decode(String.self) {
                    migrations.append(identifier)
                }
                #expect(migrations == ["1 visits"])
            }
        }
    }

    @Test func aSchemaMissingOrNewerIsRefused() async throws {
        let (server, name, location) = try await Self.fresh()
        let missing = await Self.failure(location)
        #expect("\(missing.map(String.init(describing:)) ?? "opened")".contains("holds no history yet"))
        try await PostgresHistoryDatabase.withDatabase(at: location, access: .writing(deviceKeys: "raw", secretFingerprint: nil), logger: Self.logger) { _ in }
        try await server.psql("INSERT INTO history_migrations (identifier) VALUES ('9 from the future')", database: name)
        for access in [HistoryDatabaseAccess.reading, .writing(deviceKeys: "raw", secretFingerprint: nil)] {
            guard case .newerSchema(_, let migrations) = await Self.failure(location, access) else {
                Issue.record("a newer schema was not refused for \(access)")
                continue
            }
            #expect(migrations == ["9 from the future"])
        }
    }

    @Test func aWrongPasswordIsARefusedLoginThatNeverShowsThePassword() async throws {
        var (_, _, location) = try await Self.fresh()
        location.password = "not-the-password-\(UInt32.random(in: 0...UInt32.max))"
        let error = await Self.failure(location)
        guard case .loginRefused = error else {
            Issue.record("expected a refused login, got \(String(describing: error))")
            return
        }
        let text = "\(error.map(String.init(describing:)) ?? "")"
        #expect(text.contains("refused the login"), "\(text)")
        #expect(text.contains("password authentication failed"), "\(text)")
        #expect(!text.contains(location.password ?? "?"), "\(text)")
        #expect(!String(reflecting: location).contains(location.password ?? "?"))
    }

    @Test func noServerIsUnreachableAndNoDatabaseIsSaid() async throws {
        var (_, _, location) = try await Self.fresh()
        var nowhere = location
        nowhere.port = try Broker.unusedPort()
        guard case .unreachable(let path, _) = await Self.failure(nowhere) else {
            Issue.record("a port nothing listens on was not unreachable")
            return
        }
        #expect(path == nowhere.description)
        location.database = "no_such_database"
        let missing = await Self.failure(location, .writing(deviceKeys: "raw", secretFingerprint: nil))
        guard case .cannotOpen(_, let reason) = missing else {
            Issue.record("a database that does not exist: \(String(describing: missing))")
            return
        }
        #expect(reason.contains("does not exist"), "\(reason)")
    }

    /// A role that may connect but not create the schema is told which grants it lacks; as the
    /// database's owner (docs/HISTORY.md), it writes; the reports' role with its documented grants
    /// reads.
    @Test func aRoleWithoutGrantsAndWithThem() async throws {
        let (server, name, superuser) = try await Self.fresh()
        let role = "recorder_\(name)"
        try await server.psql("CREATE ROLE \(role) LOGIN PASSWORD 'recorder-pw'; GRANT CONNECT ON DATABASE \(name) TO \(role)")
        var location = superuser
        location.username = role
        location.password = "recorder-pw"
        let writing = HistoryDatabaseAccess.writing(deviceKeys: "raw", secretFingerprint: nil)
        guard case .cannotOpen(_, let reason) = await Self.failure(location, writing) else {
            Issue.record("a role without CREATE on the schema opened the database for writing")
            return
        }
        #expect(reason.contains("grants"), "\(reason)")
        try await server.psql("ALTER DATABASE \(name) OWNER TO \(role)")
        var batch = HistoryBatch()
        batch.storeVisits = [StoreVisitRecord(device: "d", store: 101, enter: 1_000, opening: .enter, lastSeen: 1_000)]
        try await PostgresHistoryDatabase.withDatabase(at: location, access: writing, logger: Self.logger) { database in
            try await database.write(batch)
        }
        // The reports' role, read-only, with the grants the documentation gives it.
        let reader = "reports_\(name)"
        try await server.psql("CREATE ROLE \(reader) LOGIN PASSWORD 'reports-pw'; GRANT CONNECT ON DATABASE \(name) TO \(reader)")
        try await server.psql("GRANT USAGE ON SCHEMA public TO \(reader); GRANT SELECT ON ALL TABLES IN SCHEMA public TO \(reader)", database: name)
        location.username = reader
        location.password = "reports-pw"
        let read = try await PostgresHistoryDatabase.withDatabase(at: location, access: .reading, logger: Self.logger) { database in
            try await database.storeVisits(stores: [], began: 0..<10_000)
        }
        #expect(read == batch.storeVisits)
    }

    /// A server restarted under the writer: a write made while it is down waits, and goes
    /// through once it is back, on the same client.
    @Test func aServerRestartIsWaitedOut() async throws {
        let server = try await PostgresServer.start()
        do {
            try await Self.writeAcross(restartOf: server)
        } catch {
            await server.cleanUp()
            throw error
        }
        await server.cleanUp()
    }

    private static func writeAcross(restartOf server: PostgresServer) async throws {
        try await server.psql("CREATE DATABASE restarting")
        let location = try PostgresLocation(url: server.url(database: "restarting"))
        try await PostgresHistoryDatabase.withDatabase(at: location, access: .writing(deviceKeys: "raw", secretFingerprint: nil), logger: logger) { database in
            var batch = HistoryBatch()
            batch.storeVisits = [StoreVisitRecord(device: "d", store: 101, enter: 1_000, opening: .enter, lastSeen: 1_000)]
            try await database.write(batch)
            try await server.stop()
            batch.storeVisits = [StoreVisitRecord(device: "d", store: 101, enter: 2_000, opening: .enter, lastSeen: 2_000)]
            // The write waits for a connection while the server is away (the pool tries again,
            // 100 ms growing by a quarter each time), and goes through once it is back.
            async let written: Void = database.write(batch)
            try await Task.sleep(for: .seconds(1))
            try await server.start()
            try await written
            #expect(try await database.storeVisits(stores: [], began: 0..<10_000).map(\.enter) == [1_000, 2_000])
        }
    }
}
