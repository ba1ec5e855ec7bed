import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import TestSupport
import Testing

/// `beacon-sim run` publishing through a broker that restarts mid-run, as beacon-edge and
/// beacon-aggregator are tested to: it reconnects, goes on, and every batch arrives.
@Suite("Deployment: the simulator rides out a broker restart", .hangLimit)
struct SimulatorReconnectTests {
    static let simulator = ACLTests.root.appendingPathComponent(".build/debug/beacon-sim").path
    /// Simulated seconds: one batch window each.
    static let windows = 20

    @Test("the broker stopped for 1.5 s mid-run: the simulator finishes, every batch of every gateway arrives")
    func brokerRestart() async throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.simulator), "build the package first (swift build --build-tests)")
        try await withBroker(BrokerConfiguration(persistence: true)) { broker in
            // A persistent session, so the broker queues for the subscriber while both reconnect.
            var configuration = MQTTConfiguration(host: broker.host, port: broker.port, clientID: "sim-reconnect-watch")
            configuration.cleanSession = false
            configuration.reconnect = MQTTReconnectPolicy(minimumDelay: .seconds(1), maximumDelay: .seconds(1), exponentialBackoff: false)
            let watcher = try await Watcher.start(MQTTClient(configuration: configuration, logger: Logger(label: "test.sim-watch")),
                                                  filters: ["beaconnet/sightings/#"])
            let directory = broker.directory
            // 20 s in real time from every gateway of the default chain: each window's batches go
            // out at its end, and in between the simulator waits — when the broker goes away.
            let simulator = try ChildProcess(executable: Self.simulator, arguments: [
                "run", "--host", "127.0.0.1", "--port", "\(broker.port)", "--rate", "1", "--duration", "\(Self.windows)", "--seed", "3",
                "--truth", directory + "/truth.jsonl",
            ], outputFile: directory + "/sim.log")
            func batches() -> [(gateway: String, seq: UInt64)] {
                watcher.received.compactMap { message in (try? SightingBatch.decode(message.payload)).map { ($0.gateway.rawValue, $0.sequence) } }
            }
            let gateways = try await Self.defaultGateways(directory)
            // Right after the first window's batches, so that a test process slowed by a busy
            // machine still stops the broker while the run goes on: down for longer than a window.
            try await pollUntil("the simulator publishing") { batches().count >= gateways.count }
            try await broker.stop()
            try await Task.sleep(for: .milliseconds(1500))
            try await broker.start()

            let exited = await simulator.waitForExit(timeout: readinessLimit)
            let log = (try? String(contentsOfFile: directory + "/sim.log", encoding: .utf8)) ?? ""
            if !exited { simulator.send(SIGKILL) }
            #expect(exited && simulator.exitStatus == 0, "beacon-sim: exit \(simulator.exitStatus.map(String.init) ?? "none"): \(log.suffix(2000))")
            try await pollUntil("every batch of every gateway", explain: {
                let got = Set(batches().map { "\($0.gateway)/\($0.seq)" })
                return "\(got.count) of \(gateways.count * Self.windows) batches"
            }) {
                Set(batches().map { "\($0.gateway)/\($0.seq)" }).count == gateways.count * Self.windows
            }
            let seqs = Dictionary(grouping: batches(), by: \.gateway).mapValues { Set($0.map(\.seq)) }
            #expect(Set(seqs.keys) == gateways)
            #expect(seqs.values.allSatisfy { $0 == Set(0..<UInt64(Self.windows)) }, "every gateway's every seq, none skipped")
            // The client says so whether or not a publish met the gap (one queued while it
            // reconnects does not): the restart really interrupted the run.
            #expect(log.contains("connection lost") && (log.contains("reconnected") || log.contains("publishing resumes")),
                    "the restart really interrupted it: \(log.suffix(2000))")
            await watcher.stop()
        }
    }

    /// The gateways of the simulator's default chain (`beacon-sim chain`).
    static func defaultGateways(_ directory: String) async throws -> Set<String> {
        let path = directory + "/chain.json"
        try await runCommand(simulator, ["chain"], output: path)
        let chain = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let gateways = (chain?["gateways"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }
        try #require(!gateways.isEmpty, "no gateways in \(path)")
        return Set(gateways)
    }
}
