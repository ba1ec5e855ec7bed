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
    /// The device the edge hears (``BeaconCapture``).
    static let device = BeaconCapture.device

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
    func untilFlowing(timeout: Duration = .seconds(40)) async throws {
        try await until("the edge's batches reach the aggregator through the bridge", timeout: timeout) {
            batches() >= 3 && decidedBatches() >= 3 && edgeStatuses().contains { $0.state == .online }
        }
    }

    /// Polls `condition` every 50 ms until it holds; throws after `timeout`, saying what was seen.
    func until(_ what: String, timeout: Duration = .seconds(30), _ condition: () -> Bool) async throws {
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
            try BeaconCapture.write(to: capture, seconds: 300)
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
                    if !(await process.waitForExit(timeout: .seconds(15))) { process.send(SIGKILL) }
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

/// A btsnoop capture (Android's H4 format, datalink 1002) of one iBeacon heard every half
/// second: replayed by beacon-edge at recorded speed it keeps the edge connected and publishing
/// for as long as the capture lasts, with a device the aggregator sees enter store 12.
enum BeaconCapture {
    static let uuid: [UInt8] = [0xE2, 0xC5, 0x6D, 0xB5, 0xDF, 0xFB, 0x48, 0xD2, 0xB0, 0x60, 0xD0, 0xF5, 0xA7, 0x10, 0x96, 0xE0]
    /// The device's id on the wire: its own major 1, minor 207.
    static let device = "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207"

    /// Writes `seconds` of the capture, starting now, to `path`.
    static func write(to path: String, seconds: Int) throws {
        // AD structures: flags, then Apple's iBeacon (UUID, major, minor, measured power -59).
        let advert: [UInt8] = [0x02, 0x01, 0x06, 0x1A, 0xFF, 0x4C, 0x00, 0x02, 0x15] + uuid + [0x00, 0x01, 0x00, 0xCF, 0xC5]
        // HCI LE Advertising Report event: one ADV_IND report from a public address, RSSI -55.
        let report: [UInt8] = [0x02, 0x01, 0x00, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, UInt8(advert.count)] + advert + [0xC9]
        let packet: [UInt8] = [0x04, 0x3E, UInt8(report.count)] + report
        var bytes = Array("btsnoop".utf8) + [0] + bigEndian(UInt32(1)) + bigEndian(UInt32(1002))
        // Microseconds since 0000-01-01, the format's epoch, 62 168 256 000 s before Unix's.
        let start = UInt64(Date().timeIntervalSince1970 * 1_000_000) + 62_168_256_000_000_000
        for index in 0..<(seconds * 2) {
            bytes += bigEndian(UInt32(packet.count)) + bigEndian(UInt32(packet.count))
            bytes += bigEndian(UInt32(3)) + bigEndian(UInt32(0))  // received, an event; no drops
            bytes += bigEndian(start + UInt64(index) * 500_000) + packet
        }
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw BridgeTestError("cannot write \(path)")
        }
    }

    private static func bigEndian<I: FixedWidthInteger>(_ value: I) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
