import BeaconCore
@testable import BeaconHistory
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The simulator's shoppers through the real aggregator into two `beacon-history` recorders: one
/// runs throughout, writing an SQLite file; the other, writing a PostgreSQL database (an SQLite
/// file where PostgreSQL is not installed), is stopped mid-run while the events go on and started
/// again. Its persistent session must make it lose nothing: both databases end the same. The
/// visits are compared with the simulator's truth, and `beacon-history report` answers from the
/// second database.
@Suite("History: simulator → aggregator → beacon-history → report", .serialized, .hangLimit)
struct HistoryEndToEndTests {
    @Test func aRestartedRecorderLosesNothing() async throws {
        let aggregatorBinary = try HistoryStack.binary("beacon-aggregator")
        let simBinary = try HistoryStack.binary("beacon-sim")
        // Deep queues, as the shipped brokers have: the restarted recorder's backlog waits there.
        try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 200000"])) { broker in
            let directory = try TestDirectory.make("history-e2e").path
            let secret = "\(directory)/secret"
            try "0123456789abcdef0123456789abcdef\n".write(toFile: secret, atomically: true, encoding: .utf8)
            var stack = HistoryStack(broker: broker, directory: directory, secret: secret)
            if SharedPostgres.isInstalled { stack.postgres["restarted"] = try await SharedPostgres.database("history_e2e").url }
            try await runCommand(simBinary, ["chain"], output: "\(directory)/chain.json")
            let aggregator = try ChildProcess(executable: aggregatorBinary, arguments: [
                "run", "--config", "\(directory)/chain.json", "--port", "\(broker.port)", "--id", "agg-history", "--event-time",
            ], outputFile: "\(directory)/aggregator.log")
            let steady = try stack.startRecorder("steady")
            var restarted = try stack.startRecorder("restarted")
            var sim: ChildProcess?
            func stopAll() async {
                for process in [sim, restarted, steady, aggregator].compactMap({ $0 }) {
                    process.send(SIGTERM)
                    if !(await process.waitForExit(timeout: .seconds(30))) { process.send(SIGKILL) }
                }
            }
            do {
                try await pollUntil("both recorders connected", explain: { stack.log("restarted") }) {
                    stack.connections("steady") >= 1 && stack.connections("restarted") >= 1
                }
                // 900 simulated seconds at 20× real time: about 45 s of events.
                sim = try ChildProcess(executable: simBinary, arguments: [
                    "run", "--host", "127.0.0.1", "--port", "\(broker.port)", "--rate", "20", "--duration", "900", "--seed", "11",
                    "--arrival-interval", "8", "--truth", "\(directory)/truth.txt",
                ], outputFile: "\(directory)/sim.log")
                try await Self.restartMidRun(&restarted, stack: stack)
                let finished = try #require(sim)
                #expect(await finished.waitForExit(timeout: readinessLimit), "the simulator did not finish")
                // Nothing is published after the aggregator has stopped: the recorders can catch up.
                aggregator.send(SIGTERM)
                #expect(await aggregator.waitForExit(timeout: readinessLimit))
                try await Self.expectTheSameVisits(stack)
                await stopAll()
                try await Self.expectTheSameVisits(stack)
                try await Self.expectTheTruth(stack)
                try await Self.expectAReport(stack)
            } catch {
                for name in ["aggregator", "sim", "steady", "restarted"] { print("--- \(name) log ---\n\(stack.log(name).suffix(4000))") }
                await stopAll()
                throw error
            }
        }
    }

    /// Once the recorder has written visits, stops it (SIGTERM: it writes what it received and
    /// disconnects) while events go on, then starts it again.
    static func restartMidRun(_ recorder: inout ChildProcess, stack: HistoryStack) async throws {
        let before = try await pollAsync("the recorder to write visits", every: .milliseconds(200)) {
            let visits = try? await stack.visits("restarted").stores
            return (visits?.count ?? 0) >= 20 ? visits : nil
        }
        recorder.send(SIGTERM)
        #expect(await recorder.waitForExit(timeout: readinessLimit))
        #expect(recorder.exitStatus == 0, "\(stack.log("restarted").suffix(2000))")
        // Away while the steady one records more visits.
        _ = try await pollAsync("more visits while the recorder is away", every: .milliseconds(200)) {
            (try? await stack.visits("steady").stores.count).flatMap { $0 >= before.count + 15 ? true : nil }
        }
        recorder = try stack.startRecorder("restarted")
        try await pollUntil("the recorder connected again") { stack.connections("restarted") >= 2 }
    }

    /// Both recorders hold the same visits (once the restarted one has caught up).
    static func expectTheSameVisits(_ stack: HistoryStack) async throws {
        let (steady, restarted) = try await pollAsync("the restarted recorder to catch up", every: .milliseconds(500)) {
            let steady = try await stack.visits("steady")
            let restarted = try await stack.visits("restarted")
            return steady == restarted ? (steady, restarted) : nil
        }
        #expect(steady.stores.count > 50)
        #expect(restarted.sections.count >= restarted.stores.count)
    }

    /// The store visits per store within a tenth of the simulator's truth (the engine's store
    /// decisions are right over 99 % of the time; a visit still open at the end or split by a
    /// short absence is what differs).
    static func expectTheTruth(_ stack: HistoryStack) async throws {
        let truth = try stack.trueStoreVisits()
        let recorded = Dictionary(grouping: try await stack.visits("steady").stores) { line in
            UInt16(line.split(separator: " ")[1]) ?? 0
        }.mapValues(\.count)
        print("history end to end: store visits recorded \(recorded.sorted { $0.key < $1.key }), in the truth \(truth.sorted { $0.key < $1.key })")
        #expect(Set(truth.keys) == Set(recorded.keys))
        for (store, count) in truth {
            let seen = recorded[store] ?? 0
            #expect(abs(seen - count) * 10 <= count, "store \(store): \(seen) visits recorded, \(count) in the truth")
        }
    }

    /// `beacon-history report` over the whole run counts what the databases hold.
    static func expectAReport(_ stack: HistoryStack) async throws {
        let output = "\(stack.directory)/report.json"
        // The simulation started when it was started, and ran 900 s of event time ahead.
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        try await runCommand(try HistoryStack.binary("beacon-history"), [
            "report", "--database", stack.database("restarted"), "--from", "\(now - 3_600_000)", "--to", "\(now + 7_200_000)", "--time-zone", "UTC",
            "--format", "json", "--step", "1440",
        ], output: output)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let report = try decoder.decode(HistoryReport.self, from: Data(contentsOf: URL(fileURLWithPath: output)))
        let visits = try await stack.visits("steady")
        #expect(report.storeSummaries.map(\.visits).reduce(0, +) == visits.stores.count)
        #expect(report.sections.map(\.visits).reduce(0, +) == visits.sections.count)
        #expect(report.storeSummaries.allSatisfy { $0.name != nil && ($0.dwellMedian ?? 0) > 0 && $0.peakOccupancy > 0 })
        #expect(!report.flows.isEmpty)
    }
}
