import BrokerHarness
import Foundation
import TestSupport
import Testing

/// `beacon-history` pointed at PostgreSQL as a person meets it: a refused login and a server not
/// there exit 69, a database without history 78, each with a sentence that never holds the
/// password; with the password in a file it records and reports.
@Suite(
    "History: the program on PostgreSQL", .hangLimit,
    .enabled(if: SharedPostgres.isInstalled, SharedPostgres.skipReason))
struct HistoryPostgresProgramTests {
    static func passwordFile(_ password: String) throws -> String {
        let path = try TestDirectory.make("history-pg-password").appendingPathComponent("password").path
        try (password + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func aRefusedLoginExits69WithoutThePassword() async throws {
        let database = try await SharedPostgres.database()
        let wrong = "wrong-\(UInt32.random(in: 0...UInt32.max))"
        let url = database.server.url(database: database.name, password: wrong)
        let (status, output) = try await HistoryProgramTests.run([
            "run", "--database", url, "--store-raw-device-ids", "--port", "\(try Broker.unusedPort())", "--log-level", "trace",
        ])
        #expect(status == 69, "\(output)")
        #expect(output.contains("refused the login"), "\(output)")
        #expect(output.contains("postgres://\(database.server.superuser)@127.0.0.1:\(database.server.port)/\(database.name)"), "\(output)")
        #expect(!output.contains(wrong), "the password is in the output: \(output)")
    }

    @Test func noServerExits69AndNoHistoryExits78() async throws {
        let port = try Broker.unusedPort()
        let (unreachable, said) = try await HistoryProgramTests.run([
            "report", "--database", "postgres://history:secret-pw@127.0.0.1:\(port)/history", "--time-zone", "UTC",
        ])
        #expect(unreachable == 69, "\(said)")
        #expect(said.contains("cannot reach the history database postgres://history@127.0.0.1:\(port)/history"), "\(said)")
        #expect(!said.contains("secret-pw"), "\(said)")
        let database = try await SharedPostgres.database()
        let (empty, emptySaid) = try await HistoryProgramTests.run(["report", "--database", database.url, "--time-zone", "UTC"])
        #expect(empty == 78, "\(emptySaid)")
        #expect(emptySaid.contains("holds no history yet"), "\(emptySaid)")
    }

    /// The password from `--database-password-file`: the recorder connects, makes the schema,
    /// stops cleanly; the report reads it; neither ever logs the password.
    @Test func withThePasswordInAFileItRecordsAndReports() async throws {
        let database = try await SharedPostgres.database()
        let server = database.server
        let url = "postgres://\(server.superuser)@127.0.0.1:\(server.port)/\(database.name)?sslmode=disable"
        let password = try Self.passwordFile(server.password)
        try await withBroker { broker in
            let directory = try TestDirectory.make("history-pg-run").path
            let recorder = try ChildProcess(executable: try HistoryStack.binary("beacon-history"), arguments: [
                "run", "--port", "\(broker.port)", "--database", url, "--database-password-file", password, "--store-raw-device-ids",
                "--log-level", "trace",
            ], outputFile: "\(directory)/run.log")
            let log = { (try? String(contentsOfFile: "\(directory)/run.log", encoding: .utf8)) ?? "" }
            try await pollUntil("the recorder connected", explain: log) { log().contains("[BeaconHistory] connected") }
            recorder.send(SIGTERM)
            #expect(await recorder.waitForExit(timeout: readinessLimit))
            #expect(recorder.exitStatus == 0, "\(log())")
            #expect(log().contains("applied migration 1 visits"), "\(log())")
            #expect(!log().contains(server.password), "the password is in the log")
        }
        let (status, output) = try await HistoryProgramTests.run([
            "report", "--database", url, "--database-password-file", password, "--time-zone", "UTC", "--format", "csv", "--only", "stores",
        ])
        #expect(status == 0, "\(output)")
        #expect(!output.contains(server.password))
    }
}
