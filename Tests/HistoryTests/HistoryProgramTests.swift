import BrokerHarness
import Foundation
import TestSupport
import Testing

/// `beacon-history` as a person meets it: its refusals, each a clear message and exit status,
/// and its read-only login of the shipped ACL.
@Suite("History: the program's refusals and its login", .hangLimit)
struct HistoryProgramTests {
    /// Runs beacon-history with `arguments` to its exit; its status and what it printed.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let directory = try TestDirectory.make("history-program").path
        let log = "\(directory)/output"
        let child = try ChildProcess(executable: try HistoryStack.binary("beacon-history"), arguments: arguments, outputFile: log)
        #expect(await child.waitForExit(timeout: readinessLimit))
        return (child.exitStatus ?? -1, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    static func secretFile(_ text: String = "0123456789abcdef0123456789abcdef") throws -> String {
        let path = try TestDirectory.make("history-secret").appendingPathComponent("secret").path
        try (text + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func withoutAPseudonymSecretOrRawIdsItRefusesToStart() async throws {
        let (status, output) = try await Self.run(["run", "--database", "/tmp/never.sqlite"])
        #expect(status == 64)
        #expect(output.contains("--pseudonym-secret FILE"), "\(output)")
    }

    @Test func aShortOrMissingSecretIsAConfigError() async throws {
        let database = try TestDirectory.make("history-program").appendingPathComponent("h.sqlite").path
        var (status, output) = try await Self.run(["run", "--database", database, "--pseudonym-secret", try Self.secretFile("short")])
        #expect(status == 78)
        #expect(output.contains("at least 16"), "\(output)")
        (status, output) = try await Self.run(["run", "--database", database, "--pseudonym-secret", "/nonexistent/secret"])
        #expect(status == 78)
        #expect(output.contains("/nonexistent/secret cannot be read"), "\(output)")
    }

    @Test func aReportOnADatabaseThatIsNotThere() async throws {
        let (status, output) = try await Self.run(["report", "--database", "/nonexistent/history.sqlite", "--time-zone", "UTC"])
        #expect(status == 78)
        #expect(output.contains("no such file"), "\(output)")
        let (badZone, zoneOutput) = try await Self.run(["report", "--database", "/x.sqlite", "--time-zone", "Mars/Olympus"])
        #expect(badZone == 64)
        #expect(zoneOutput.contains("Mars/Olympus is not a time zone"), "\(zoneOutput)")
    }

    /// A `--database` that names no usable database is a bad flag, said with the value (its
    /// password hidden).
    @Test func aDatabaseThatIsNoFileNorURL() async throws {
        let cases = [
            ("postgres://127.0.0.1/history", "names no user"),
            ("postgres://h:pw-hidden@127.0.0.1/history?sslmode=sometimes", "has sslmode sometimes"),
            ("mysql://h:pw-hidden@127.0.0.1/history", "is neither a postgres:// URL nor a file"),
        ]
        for (database, problem) in cases {
            let (status, output) = try await Self.run(["report", "--database", database])
            #expect(status == 64, "\(database): \(output)")
            #expect(output.contains(problem), "\(database): \(output)")
            #expect(!output.contains("pw-hidden"), "\(database): \(output)")
        }
        let (status, output) = try await Self.run(["report", "--database", "/x.sqlite", "--database-password-file", "/p"])
        #expect(status == 64)
        #expect(output.contains("--database-password-file is for a postgres:// --database only"), "\(output)")
    }

    /// SIGTERM while it waits for a broker that is not there is a clean stop, as at any other time.
    @Test func aStopWhileWaitingForTheBroker() async throws {
        let directory = try TestDirectory.make("history-waiting").path
        let child = try ChildProcess(executable: try HistoryStack.binary("beacon-history"), arguments: [
            "run", "--port", "\(try Broker.unusedPort())", "--database", "\(directory)/h.sqlite", "--pseudonym-secret", try Self.secretFile(),
        ], outputFile: "\(directory)/log")
        let log = { (try? String(contentsOfFile: "\(directory)/log", encoding: .utf8)) ?? "" }
        try await pollUntil("it waits for the broker", explain: log) { log().contains("cannot connect, retrying") }
        child.send(SIGTERM)
        #expect(await child.waitForExit(timeout: readinessLimit))
        #expect(child.exitStatus == 0, "\(log())")
    }

    /// The shipped scripts' history login reads events and states and connects with its own
    /// client id only; a wrong password exits 69 naming the login.
    @Test func theShippedLogin() async throws {
        let directory = try TestDirectory.make("history-login").path
        let script = TestPaths.inPackage("deploy/scripts/make-credentials.sh").path
        try await runCommand("/bin/bash", [script, "\(directory)/creds", "--history", "history", "--aggregator", "agg-1"])
        try await withBroker(BrokerConfiguration(allowAnonymous: false, dynamicSecurity: "\(directory)/creds/dynamic-security.json")) { broker in
            let database = "\(directory)/h.sqlite"
            let good = try ChildProcess(executable: try HistoryStack.binary("beacon-history"), arguments: [
                "run", "--port", "\(broker.port)", "--username", "history", "--password-file", "\(directory)/creds/passwords/history",
                "--database", database, "--pseudonym-secret", try Self.secretFile(),
            ], outputFile: "\(directory)/good.log")
            try await pollUntil("the history login connected", explain: { (try? String(contentsOfFile: "\(directory)/good.log", encoding: .utf8)) ?? "" }) {
                ((try? String(contentsOfFile: "\(directory)/good.log", encoding: .utf8)) ?? "").contains("[BeaconHistory] connected")
            }
            good.send(SIGTERM)
            #expect(await good.waitForExit(timeout: readinessLimit))
            #expect(good.exitStatus == 0)
            let wrong = try Self.secretFile("not the password at all, no")
            let (status, output) = try await Self.run([
                "run", "--port", "\(broker.port)", "--username", "history", "--password-file", wrong,
                "--database", "\(directory)/h2.sqlite", "--pseudonym-secret", try Self.secretFile(),
            ])
            #expect(status == 69)
            #expect(output.contains("refused the login history"), "\(output)")
        }
    }
}
