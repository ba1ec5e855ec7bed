import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import Synchronization
import TestSupport

/// Store 12 deployed as shipped, on this machine: its store broker (`store.conf`) bridged over TLS
/// to the central broker (`central.conf`), the real `beacon-aggregator` as `agg-1` on the central
/// broker's loopback listener (as its systemd unit runs it) and the real `beacon-edge` as gateway
/// `gw-12-1a` on the store broker over TLS — each with its own login and the tools' default
/// client ids. A dashboard and a recorder watch the central broker.
struct ShippedChain: Sendable {
    let central: ShippedBroker
    let store: ShippedBroker
    /// `dash` at the central broker: aggregator and gateway statuses, events, device states.
    let dashboard: Watcher
    /// `ops` at the central broker: the sightings the bridge forwards.
    let recorder: Watcher

    /// The central broker's users: the store's gateways, the aggregator, a dashboard, a recorder
    /// and the store's bridge.
    static let centralUsers = [
        "--gateway", "gw-12-1a:12", "--gateway", "gw-12-1b:12", "--aggregator", "agg-1",
        "--dashboard", "dash", "--recorder", "ops", "--bridge", "bridge-12:12:gw-12-1a,gw-12-1b",
    ]
    /// The store broker's users: its gateways, and a dashboard and a recorder on the store box.
    static let storeUsers = ["--gateway", "gw-12-1a:12", "--gateway", "gw-12-1b:12", "--dashboard", "dash", "--recorder", "ops"]
    /// The device the edge hears (``SyntheticIBeaconCapture``).
    static let device = SyntheticIBeaconCapture.device

    /// The batches of `gateway` the recorder has received.
    func batches(of gateway: String = "gw-12-1a") -> Int {
        recorder.received.filter { $0.topic == "beaconnet/sightings/12/\(gateway)" }.count
    }

    /// The aggregator's statuses the dashboard has received, oldest first.
    func aggregatorStatuses() -> [AggregatorStatus] {
        dashboard.received.filter { $0.topic == "beaconnet/aggregators/agg-1/status" }
            .compactMap { try? AggregatorStatus.decode($0.payload) }
    }

    /// The edge's statuses the dashboard has received through the bridge, oldest first.
    func edgeStatuses() -> [GatewayStatus] {
        dashboard.received.filter { $0.topic == "beaconnet/gateways/gw-12-1a/status" }
            .compactMap { try? GatewayStatus.decode($0.payload) }
    }

    /// Batches the aggregator has taken as new, by its latest status.
    func decidedBatches() -> UInt64 {
        aggregatorStatuses().last?.counters.batches ?? 0
    }

    /// Waits until the edge's batches flow through the bridge and the aggregator decides them.
    func untilFlowing(timeout: Duration = readinessLimit) async throws {
        try await until("the edge's batches reach the aggregator through the bridge", timeout: timeout) {
            batches() >= 3 && decidedBatches() >= 3 && edgeStatuses().contains { $0.state == .online }
        }
    }

    /// Polls `condition` every 50 ms until it holds; throws after `timeout`, saying what was seen.
    func until(_ what: String, timeout: Duration = readinessLimit, _ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            guard ContinuousClock.now < deadline else {
                throw BridgeTestError("timed out waiting until \(what): \(batches()) batches at the central broker, "
                    + "aggregator \(aggregatorStatuses().last.map { "\($0.state) \($0.counters)" } ?? "silent"), "
                    + "edge \(edgeStatuses().last.map { "\($0.state)" } ?? "silent")")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }
}

/// Deploys ``ShippedChain``, runs `body` with it, and always stops the programs (SIGTERM, newest
/// first) and the brokers.
func withShippedChain<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (ShippedChain) async throws -> T
) async throws -> T {
    let binaries = TestPaths.inPackage(".build/debug")
    let aggregatorBinary = binaries.appendingPathComponent("beacon-aggregator").path
    let edgeBinary = binaries.appendingPathComponent("beacon-edge").path
    guard FileManager.default.isExecutableFile(atPath: aggregatorBinary), FileManager.default.isExecutableFile(atPath: edgeBinary) else {
        throw BridgeTestError("build the package first (swift build --build-tests): \(binaries.path)")
    }
    return try await withShippedBroker("central.conf", users: ShippedChain.centralUsers) { central in
        try await withShippedBroker("store.conf", users: ShippedChain.storeUsers, replacing: [
            "address central.beaconnet.example:8883": "address 127.0.0.1:\(central.tlsPort)",
            "bridge_cafile /etc/mosquitto/beaconnet/central-ca.crt": "bridge_cafile \(central.caFile)",
            "remote_password CHANGE-ME": "remote_password \(try central.password("bridge-12"))",
        ]) { store in
            let directory = store.broker.directory
            let dashboard = try await Watcher.start(central.client("dash", id: "dash"), filters: [
                "beaconnet/aggregators/+/status", "beaconnet/gateways/+/status", "beaconnet/events/#", "beaconnet/devices/+/state",
            ])
            let recorder = try await Watcher.start(central.client("ops", id: "ops"), filters: ["beaconnet/sightings/#"])
            let aggregator = try ChildProcess(executable: aggregatorBinary, arguments: [
                "run", "--config", TestPaths.inPackage("config/chain.example.json").path, "--id", "agg-1",
                "--host", "127.0.0.1", "--port", "\(central.port)", "--username", "agg-1",
                "--password-file", "\(central.credentials)/passwords/agg-1", "--status-interval", "0.3",
            ], outputFile: "\(directory)/aggregator.log")
            // The edge as a gateway's config has it against a store broker: TLS, its user name, no
            // client_id (the gateway id is the default).
            let capture = "\(directory)/capture.btsnoop"
            try SyntheticIBeaconCapture.write(to: capture, seconds: 300)
            let edgeConfig = """
                { "gateway": "gw-12-1a", "store": 12, "section": 1, "allow_all": true,
                  "broker": { "host": "127.0.0.1", "port": \(store.tlsPort), "username": "gw-12-1a",
                              "tls": { "ca_file": "\(store.caFile)" } } }
                """
            try edgeConfig.write(toFile: "\(directory)/edge.json", atomically: false, encoding: .utf8)
            let edge = try ChildProcess(executable: edgeBinary, arguments: [
                "--config", "\(directory)/edge.json", "--password-file", "\(store.credentials)/passwords/gw-12-1a",
                "--replay", capture, "--speed", "1", "--rebase-time",
            ], outputFile: "\(directory)/edge.log")
            let chain = ShippedChain(central: central, store: store, dashboard: dashboard, recorder: recorder)
            func stop() async {
                for process in [edge, aggregator] {
                    process.send(SIGTERM)
                    if !(await process.waitForExit(timeout: readinessLimit)) { process.send(SIGKILL) }
                }
                await recorder.stop()
                await dashboard.stop()
            }
            do {
                let result = try await body(chain)
                await stop()
                return result
            } catch {
                for name in ["aggregator", "edge"] {
                    let log = (try? String(contentsOfFile: "\(directory)/\(name).log", encoding: .utf8)) ?? ""
                    print("--- \(name) log ---\n\(log.suffix(4000))--- end of \(name) log ---")
                }
                await stop()
                throw error
            }
        }
    }
}

/// A connected client subscribed to some topics, keeping every message it receives, for tests to
/// poll.
final class Watcher: Sendable {
    let client: MQTTClient
    private let messages = Mutex<[MQTTMessage]>([])
    private let task = Mutex<Task<Void, Never>?>(nil)

    private init(client: MQTTClient) { self.client = client }

    /// Connects `client`, subscribes to `filters` and starts collecting.
    static func start(_ client: MQTTClient, filters: [String]) async throws -> Watcher {
        try await client.connect()
        let subscription = try await client.subscribe(to: filters, qos: .atLeastOnce)
        let watcher = Watcher(client: client)
        let task = Task {
            for await message in subscription { watcher.messages.withLock { $0.append(message) } }
        }
        watcher.task.withLock { $0 = task }
        return watcher
    }

    /// Everything received so far, in order.
    var received: [MQTTMessage] { messages.withLock { $0 } }

    /// Stops collecting and disconnects.
    func stop() async {
        task.withLock { $0?.cancel() }
        await client.disconnect()
    }
}
