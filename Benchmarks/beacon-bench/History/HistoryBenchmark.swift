import ArgumentParser
import BeaconHistory
import BrokerHarness
import Foundation
import Logging

/// `beacon-bench history`: beacon-history's writer fed simulated visits as fast as it takes
/// them — each event decoded, applied to the visit book, pseudonymised, and written in one
/// transaction per batch — on SQLite and on PostgreSQL, beside a bare insert loop writing as many
/// rows to the same database in the same run. The target: 5 000 events/s on each.
struct HistoryBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "beacon-history's writer on SQLite and PostgreSQL, beside a bare insert loop (target ≥ 5 000 events/s).")

    @Option(help: "Events fed to the writer (whole visits of 8 events).")
    var events = 200_000

    @Option(help: "Events per flush (one transaction each): the recorder flushes every second, so 5 000 is a second at the target.")
    var batch = 5_000

    @Option(help: "sqlite, postgres or all.")
    var database = "all"

    @Option(help: "A PostgreSQL database to use (postgres://…, emptied of beacon-history's tables and bench_rows first) instead of a server this run starts with PostgreSQL's durable defaults.")
    var postgres: String?

    func validate() throws {
        guard events >= 8, batch >= 1 else { throw ValidationError("--events must be at least 8 and --batch at least 1") }
        guard ["sqlite", "postgres", "all"].contains(database) else { throw ValidationError("--database is sqlite, postgres or all") }
    }

    func run() async throws {
        print("beacon-bench history — \(ISO8601DateFormatter().string(from: Date())), \(machineArchitecture()), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        let traffic = try VisitTraffic(events: events)
        print("\(traffic.messages.count) events of \(traffic.visits) simulated visits (20 stores × 6 sections), \(batch) events per transaction, pseudonymised")
        if database != "postgres" {
            let directory = NSTemporaryDirectory() + "beacon-bench-history-\(getpid())"
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = "\(directory)/history.sqlite"
            print("\nSQLite (WAL, synchronous=NORMAL), \(path):")
            let writer = try await HistoryWriterRun(traffic: traffic, batch: batch).measure(.sqlite(path: path))
            writer.print()
            try BareInsertLoop(rows: writer.records, batch: writer.recordsPerBatch).sqlite(path: path).print(beside: writer)
        }
        if database != "sqlite" { try await measurePostgres(traffic) }
    }

    private func measurePostgres(_ traffic: VisitTraffic) async throws {
        if let postgres {
            let location = try PostgresLocation(url: postgres)
            print("\nPostgreSQL at \(location):")
            try await measurePostgres(traffic, location: location, reset: true)
            return
        }
        let server = try await PostgresServer.start(durable: true)
        do {
            try await server.psql("CREATE DATABASE bench")
            print("\nPostgreSQL (\(server.binaries), fsync and synchronous_commit on), started on 127.0.0.1:\(server.port):")
            try await measurePostgres(traffic, location: try PostgresLocation(url: server.url(database: "bench")), reset: false)
        } catch {
            await server.cleanUp()
            throw error
        }
        await server.cleanUp()
    }

    private func measurePostgres(_ traffic: VisitTraffic, location: PostgresLocation, reset: Bool) async throws {
        let loop = BareInsertLoop(rows: 0, batch: 1)
        if reset { try await loop.dropTables(location) }
        let writer = try await HistoryWriterRun(traffic: traffic, batch: batch).measure(.postgres(location))
        writer.print()
        try await BareInsertLoop(rows: writer.records, batch: writer.recordsPerBatch).postgres(location).print(beside: writer)
    }
}
