import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import TestSupport
import Testing

/// `beacon-sim run` gives every simulated gateway a retained status as real edges do
/// (`gateways/<gw>/status`, docs/WIRE.md), against a real broker: `online` at the start, `offline`
/// at a clean end — its duration or SIGTERM — and, having one connection and so no Last Will per
/// gateway, left `online` by a crash.
@Suite("Deployment: the simulator's gateway statuses", .hangLimit)
struct SimulatorStatusTests {
    static let simulator = SimulatorReconnectTests.simulator

    /// Each gateway's statuses in the order received, decoded (a payload that does not decode fails).
    static func statuses(_ watcher: Watcher) throws -> [String: [GatewayStatus]] {
        var byGateway: [String: [GatewayStatus]] = [:]
        for message in watcher.received {
            let status = try GatewayStatus.decode(message.payload)
            #expect(message.topic == "beaconnet/gateways/\(status.gateway.rawValue)/status", "\(message.topic)")
            byGateway[status.gateway.rawValue, default: []].append(status)
        }
        return byGateway
    }

    /// What a client subscribing now gets: each gateway's retained status.
    static func retained(_ broker: Broker, gateways: Set<String>) async throws -> [String: Availability] {
        let client = MQTTClient(configuration: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "retained-\(UUID().uuidString.prefix(8))"),
                                logger: Logger(label: "test.sim-status"))
        let late = try await Watcher.start(client, filters: ["beaconnet/gateways/+/status"])
        try await pollUntil("every gateway's retained status", explain: { "\(late.received.count) of \(gateways.count)" }) {
            late.received.count >= gateways.count
        }
        let states = try statuses(late).mapValues { $0.last!.state }
        await late.stop()
        return states
    }

    static func watcher(_ broker: Broker) async throws -> Watcher {
        let client = MQTTClient(configuration: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "status-watch"),
                                logger: Logger(label: "test.sim-status"))
        return try await Watcher.start(client, filters: ["beaconnet/gateways/+/status"])
    }

    static func start(_ broker: Broker, duration: Int) throws -> ChildProcess {
        try #require(FileManager.default.isExecutableFile(atPath: simulator), "build the package first (swift build --build-tests)")
        return try ChildProcess(executable: simulator, arguments: [
            "run", "--host", "127.0.0.1", "--port", "\(broker.port)", "--rate", "5", "--duration", "\(duration)", "--seed", "4",
            "--truth", broker.directory + "/truth.jsonl",
        ], outputFile: broker.directory + "/sim.log")
    }

    static func log(_ broker: Broker) -> String { (try? String(contentsOfFile: broker.directory + "/sim.log", encoding: .utf8)) ?? "" }

    @Test("a run to its end: every gateway online with its store and section, then offline, retained")
    func completeRun() async throws {
        try await withBroker(BrokerConfiguration()) { broker in
            let watcher = try await Self.watcher(broker)
            let chainGateways = try await SimulatorReconnectTests.defaultGateways(broker.directory)
            let simulator = try Self.start(broker, duration: 3)
            let exited = await simulator.waitForExit(timeout: readinessLimit)
            if !exited { simulator.send(SIGKILL) }
            #expect(exited && simulator.exitStatus == 0, "\(Self.log(broker).suffix(2000))")
            try await pollUntil("online and offline from every gateway", explain: { "\(watcher.received.count) statuses" }) {
                watcher.received.count >= 2 * chainGateways.count
            }
            let seen = try Self.statuses(watcher)
            #expect(Set(seen.keys) == chainGateways)
            for (gateway, statuses) in seen {
                #expect(statuses.map(\.state) == [.online, .offline], "\(gateway)")
                #expect(statuses.allSatisfy { $0.section != nil && $0.adapter == "beacon-sim" && $0.time != nil }, "\(gateway): \(statuses)")
                // The gateway ids of the default chain name their store: gw-<store>-….
                #expect(statuses.first.flatMap { $0.section.map { "gw-\($0.store)-" } }.map(gateway.hasPrefix) == true, "\(gateway)")
            }
            #expect(try await Self.retained(broker, gateways: chainGateways).values.allSatisfy { $0 == .offline })
            await watcher.stop()
        }
    }

    @Test("SIGTERM ends a run cleanly: offline statuses, the truth's end line, exit 0; SIGKILL leaves them online")
    func stopped() async throws {
        try await withBroker(BrokerConfiguration()) { broker in
            let watcher = try await Self.watcher(broker)
            let chainGateways = try await SimulatorReconnectTests.defaultGateways(broker.directory)
            let simulator = try Self.start(broker, duration: 3600)
            defer { simulator.send(SIGKILL) }
            try await pollUntil("every gateway online", explain: { "\(watcher.received.count) statuses" }) {
                watcher.received.count >= chainGateways.count
            }
            // A window or two published, so the run is under way when asked to stop.
            try await Task.sleep(for: .milliseconds(500))
            simulator.send(SIGTERM)
            let exited = await simulator.waitForExit(timeout: readinessLimit)
            #expect(exited && simulator.exitStatus == 0, "\(Self.log(broker).suffix(2000))")
            #expect(Self.log(broker).contains("stopped early by SIGTERM"), "\(Self.log(broker).suffix(2000))")
            let truth = try String(contentsOfFile: broker.directory + "/truth.jsonl", encoding: .utf8)
            #expect(truth.split(separator: "\n").last?.contains("\"end\":true") == true, "\(truth.suffix(500))")
            #expect(try await Self.retained(broker, gateways: chainGateways).values.allSatisfy { $0 == .offline })

            // A crash: the one connection's end says nothing per gateway.
            let crashed = try Self.start(broker, duration: 3600)
            defer { crashed.send(SIGKILL) }
            try await pollUntil("every gateway online again", explain: { "\(watcher.received.count) statuses" }) {
                watcher.received.count >= 3 * chainGateways.count
            }
            crashed.send(SIGKILL)
            _ = await crashed.waitForExit(timeout: readinessLimit)
            #expect(try await Self.retained(broker, gateways: chainGateways).values.allSatisfy { $0 == .online })
            await watcher.stop()
        }
    }
}
