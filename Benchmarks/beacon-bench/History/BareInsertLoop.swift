import BeaconHistory
import GRDB
import Logging
import PostgresNIO

/// The floor to hold the writer against: `rows` rows shaped like a store visit (the same columns
/// and primary key), each its own plain `INSERT`, `batch` rows per transaction, into a table
/// `bench_rows` of the same database — no decoding, no visit logic, no upsert.
struct BareInsertLoop {
    let rows: Int
    let batch: Int

    /// What the loop measured.
    struct Figures {
        var rows: Int
        var elapsed: Duration

        func print(beside writer: HistoryWriterRun.Figures) {
            let rate = Double(rows) / elapsed.seconds
            let writerRate = Double(writer.records) / writer.elapsed.seconds
            Swift.print("  bare insert loop (one INSERT per row, \(rows) rows):            \(formatRate(rate)) rows  (the writer: \(Int((writerRate / rate * 100).rounded())) % of it in records/s)")
        }
    }

    static let createTable = """
        CREATE TABLE IF NOT EXISTS bench_rows (device TEXT NOT NULL, store INTEGER NOT NULL, enter_time BIGINT NOT NULL,
            exit_time BIGINT, opened_by TEXT NOT NULL, closed_by TEXT, close_rank INTEGER NOT NULL, last_seen BIGINT NOT NULL,
            PRIMARY KEY (device, store, enter_time))
        """

    /// The loop on the SQLite file at `path` (as beacon-history opens it: WAL, synchronous=NORMAL).
    func sqlite(path: String) throws -> Figures {
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.write { db in try db.execute(sql: Self.createTable) }
        let clock = ContinuousClock()
        let start = clock.now
        var written = 0
        while written < rows {
            let count = min(batch, rows - written)
            let first = written
            try pool.write { db in
                let insert = try db.cachedStatement(sql: "INSERT INTO bench_rows VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
                for row in first..<(first + count) {
                    try insert.execute(arguments: ["device-\(row)", 101 + row % 20, Int64(row) * 100, Int64(row) * 100 + 60_000, "enter", "exit", 3, Int64(row) * 100])
                }
            }
            written += count
        }
        return Figures(rows: rows, elapsed: clock.now - start)
    }

    /// The loop on the PostgreSQL database at `location`, over one connection.
    func postgres(_ location: PostgresLocation) async throws -> Figures {
        try await withConnection(location) { connection, logger in
            try await connection.query(PostgresQuery(unsafeSQL: Self.createTable), logger: logger)
            let clock = ContinuousClock()
            let start = clock.now
            var written = 0
            while written < rows {
                let count = min(batch, rows - written)
                let first = written
                try await connection.withTransaction(logger: logger) { connection in
                    for row in first..<(first + count) {
                        let enter = Int64(row) * 100
                        try await connection.query("""
                            INSERT INTO bench_rows VALUES (\("device-\(row)"), \(Int32(101 + row % 20)), \(enter), \(enter + 60_000), 'enter', 'exit', 3, \(enter))
                            """, logger: logger)
                    }
                }
                written += count
            }
            return Figures(rows: rows, elapsed: clock.now - start)
        }
    }

    /// Drops beacon-history's tables and `bench_rows` in the database at `location`.
    func dropTables(_ location: PostgresLocation) async throws {
        try await withConnection(location) { connection, logger in
            try await connection.query("""
                DROP TABLE IF EXISTS store_visits, section_visits, store_names, section_names, history_settings, history_migrations, bench_rows
                """, logger: logger)
        }
    }

    @discardableResult
    private func withConnection<T>(_ location: PostgresLocation, _ body: (PostgresConnection, Logger) async throws -> T) async throws -> T {
        var logger = Logger(label: "beaconnet.bench.history")
        logger.logLevel = .warning
        let connection = try await PostgresConnection.connect(configuration: try location.connectionConfiguration(), id: 1, logger: logger)
        do {
            let result = try await body(connection, logger)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
