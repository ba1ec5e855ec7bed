import BeaconCore
import BeaconWire
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The `beacon-edge` executable itself: SIGTERM shuts it down gracefully (flush, final status,
/// clean disconnect, exit 0), and without an adapter it exits non-zero saying what to do.
@Suite("beacon-edge process", .hangLimit)
struct ProcessTests {
    /// The executable beside the test bundle (built by `swift build --build-tests`).
    static let executable = BuiltProducts.path("beacon-edge")
    /// Why a test of the program is skipped where it is not built.
    static let notBuilt: Comment = "beacon-edge not built beside the tests (swift build --build-tests)"

    struct Outcome {
        var status: Int32
        var stderr: String
    }

    /// Runs beacon-edge; `whileRunning` gets the process after it started. Spawned and reaped by
    /// the harness's ``ChildProcess`` (Foundation's `Process` was seen to miss a child's exit).
    func run(_ arguments: [String], whileRunning: (ChildProcess) async throws -> Void = { _ in }) async throws -> Outcome {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-edge-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: output) }
        let process = try ChildProcess(executable: try #require(Self.executable), arguments: arguments, outputFile: output)
        try await whileRunning(process)
        if !(await process.waitForExit(timeout: readinessLimit)) {
            process.send(SIGKILL)
            _ = await process.waitForExit(timeout: .seconds(5))
            Issue.record("beacon-edge did not exit within \(readinessLimit)")
        }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return Outcome(status: process.exitStatus ?? -1, stderr: text)
    }

    @Test("without an adapter: non-zero exit and a message that says what is missing", .enabled(if: executable != nil, notBuilt))
    func noAdapter() async throws {
        guard !FileManager.default.fileExists(atPath: "/sys/class/bluetooth/hci0") else { return }
        let outcome = try await run(["--gateway", "gw-1", "--store", "1", "--section", "1", "--allow-all", "--broker-port", "1"])
        #expect(outcome.status == 69)
        #expect(outcome.stderr.contains("hci0"), "\(outcome.stderr)")
        #expect(outcome.stderr.contains("Bluetooth") || outcome.stderr.contains("adapter"), "\(outcome.stderr)")
    }

    @Test("a bad config exits 78 before connecting, naming the key", .enabled(if: executable != nil, notBuilt))
    func badConfig() async throws {
        let outcome = try await run(["--gateway", "gw-1", "--store", "99999", "--section", "1", "--allow-all"])
        #expect(outcome.status == 78)
        #expect(outcome.stderr.contains("$.store: must be 0–65535, got 99999 (from --store)"), "\(outcome.stderr)")
    }

    @Test(
        "a capture cut off mid-record: replayed to the cut, then exit 65; decode says the same",
        .enabled(if: executable != nil, notBuilt), .enabled(if: TestData.available, TestData.skipNote))
    func truncatedCapture() async throws {
        let capture = try TestDirectory.make("edge-cut").appendingPathComponent("cut.log").path
        try Data(try TestData.bytes(TestData.bertrand).dropLast(5)).write(to: URL(fileURLWithPath: capture))
        // No broker (port 1 refuses at once): the status comes from the capture, after a short flush.
        let replayed = try await run([
            "--gateway", "gw-1", "--store", "1", "--section", "1", "--allow-all", "--broker-port", "1",
            "--replay", capture, "--speed", "max", "--flush-timeout", "1", "--log-level", "critical",
        ])
        #expect(replayed.status == 65, "\(replayed.stderr)")
        #expect(replayed.stderr.contains("ends early"), "\(replayed.stderr)")

        let decoded = try await run(["decode", capture])
        #expect(decoded.status == 65, "\(decoded.stderr)")
        #expect(decoded.stderr.contains("ends early") && decoded.stderr.contains("59 reports"), "the reports before the cut: \(decoded.stderr)")

        try Data("not a capture".utf8).write(to: URL(fileURLWithPath: capture))
        let notACapture = try await run(["decode", capture])
        #expect(notACapture.status == 65, "\(notACapture.stderr)")
    }

    @Test(
        "SIGTERM during a replay: the last window is sealed and flushed, the final status is offline, exit 0",
        .enabled(if: executable != nil, notBuilt), .enabled(if: TestData.available, TestData.skipNote))
    func sigterm() async throws {
        let file = try trimmedCsacca()
        let capture = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-edge-\(UUID().uuidString).log").path
        try Data(file.bytes).write(to: URL(fileURLWithPath: capture))
        defer { try? FileManager.default.removeItem(atPath: capture) }
        try await withBroker { broker in
            let watcher = try await Watcher(broker: broker)
            let outcome = try await run([
                "--gateway", "gw-test-1", "--store", "12", "--section", "3", "--allow-all", "--broker-port", "\(broker.port)",
                "--batch-window-ms", "100", "--replay", capture, "--speed", "1", "--log-level", "warning",
            ]) { process in
                // Under way: its first batches are out.
                try await watcher.wait(for: "the replay's first batch") { !$0.batches.isEmpty }
                process.send(SIGTERM)
            }
            #expect(outcome.status == 0, "\(outcome.stderr)")
            try await watcher.wait(for: "the final status") { $0.finalStatus != nil }
            var seen = Set<UInt64>()
            let batches = watcher.batches.filter { seen.insert($0.sequence).inserted }
            #expect(!batches.isEmpty)
            #expect(batches.map(\.sequence) == Array(0..<UInt64(batches.count)))
            let final = try #require(watcher.finalStatus)
            #expect(final.state == .offline && final.counters.buffered == 0)
            #expect(final.counters.published == UInt64(batches.reduce(0) { $0 + $1.sightings.count }))
            // Stopped early: fewer reports than the capture holds.
            #expect((final.counters.reports ?? 0) < 412)
            await watcher.stop()
        }
    }
}
