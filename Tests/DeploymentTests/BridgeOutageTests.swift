import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

/// A store broker bridged to a central one with the shipped `deploy/mosquitto/store.conf` bridge,
/// a replaying beacon-edge publishing to the store broker, and the central broker stopped in the
/// middle: every batch must reach the central subscriber (duplicates allowed, removed by `seq`).
@Suite("Deployment: bridge outage", .hangLimit)
struct BridgeOutageTests {
    static let root = ACLTests.root
    static let capture = root.appendingPathComponent("../shared/testdata/captures/csacca_horizon74_android_legacy/btsnoop_hci.log").standardized.path

    /// The bridge section of the shipped store.conf, pointed at `port` with `password`; TLS off for
    /// the loopback test.
    static func bridgeLines(port: Int, password: String) throws -> [String] {
        let text = try String(contentsOf: root.appendingPathComponent("deploy/mosquitto/store.conf"), encoding: .utf8)
        let lines = text.split(separator: "\n").map(String.init)
        guard let start = lines.firstIndex(where: { $0.hasPrefix("connection ") }) else { throw BridgeTestError("no bridge in store.conf") }
        return lines[start...].compactMap { line in
            if line.hasPrefix("#") || line.isEmpty || line.hasPrefix("bridge_cafile") { return nil }
            if line.hasPrefix("address ") { return "address 127.0.0.1:\(port)" }
            if line.hasPrefix("remote_password ") { return "remote_password \(password)" }
            return line
        }
    }

    @Test("stopping the central broker mid-replay loses no batch",
          .enabled(if: FileManager.default.fileExists(atPath: capture), "../shared/testdata is absent"))
    func centralOutage() async throws {
        let edge = Self.root.appendingPathComponent(".build/debug/beacon-edge").path
        try #require(FileManager.default.isExecutableFile(atPath: edge), "build the package first (swift build --build-tests): \(edge)")
        let acl = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-bridge-acl-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: acl) }
        try await runCommand("/bin/bash", [Self.root.appendingPathComponent("deploy/scripts/make-acl.sh").path,
                                           "--bridge", "bridge-12:12:gw-12-1a", "--aggregator", "agg-1"], output: acl)

        try await withBroker(BrokerConfiguration(
            users: ["bridge-12": "p-bridge", "agg-1": "p-agg"], allowAnonymous: false, persistence: true,
            extraConfiguration: ["acl_file \(acl)", "max_queued_messages 100000"])
        ) { central in
            try await withBroker(BrokerConfiguration(
                persistence: true, extraConfiguration: ["max_queued_messages 100000"] + (try Self.bridgeLines(port: central.port, password: "p-bridge")))
            ) { store in
                try await Self.run(edge: edge, central: central, store: store)
            }
        }
    }

    static func run(edge: String, central: Broker, store: Broker) async throws {
        // The aggregator's view: a persistent session, so the central broker queues for it too.
        var configuration = MQTTConfiguration(host: central.host, port: central.port, clientID: "agg-1-bridge-test")
        configuration.username = "agg-1"
        configuration.password = "p-agg"
        configuration.cleanSession = false
        configuration.reconnect = MQTTReconnectPolicy(minimumDelay: .seconds(1), maximumDelay: .seconds(1), exponentialBackoff: false)
        let subscriber = MQTTClient(configuration: configuration, logger: Logger(label: "test.central"))
        try await subscriber.connect()
        let subscription = try await subscriber.subscribe(to: ["beaconnet/sightings/#", "beaconnet/gateways/+/status"], qos: .atLeastOnce)
        let batches = Mutex<[UInt64: Int]>([:])
        let duplicates = Mutex(0)
        let finalStatus = Mutex<GatewayStatus?>(nil)
        let collecting = Task {
            for await m in subscription {
                if m.topic.hasPrefix("beaconnet/sightings/"), let b = try? SightingBatch.decode(m.payload) {
                    batches.withLock { all in
                        if all[b.sequence] != nil { duplicates.withLock { $0 += 1 } }
                        all[b.sequence] = b.sightings.count
                    }
                } else if let s = try? GatewayStatus.decode(m.payload), s.state == .offline, s.counters.published != nil {
                    finalStatus.withLock { $0 = s }
                }
            }
        }
        try await untilBridged(store: store, central: central, topic: "beaconnet/sightings/12/gw-12-1a", listener: ("agg-1", "p-agg"))

        let replay = try ChildProcess(executable: edge, arguments: [
            "--gateway", "gw-12-1a", "--store", "12", "--section", "1", "--allow-all",
            "--broker-host", "127.0.0.1", "--broker-port", "\(store.port)",
            "--replay", capture, "--speed", "4", "--rebase-time",
        ], outputFile: store.directory + "/edge.log")
        try await Task.sleep(for: .seconds(4))
        try await central.stop()
        try await Task.sleep(for: .seconds(3))
        try await central.start()
        #expect(await replay.waitForExit(timeout: readinessLimit), "the replay did not finish")

        let deadline = ContinuousClock.now + readinessLimit
        while ContinuousClock.now < deadline {
            if let status = finalStatus.withLock({ $0 }), UInt64(batches.withLock { $0.values.reduce(0, +) }) >= status.counters.published ?? .max { break }
            try await Task.sleep(for: .milliseconds(100))
        }
        collecting.cancel()
        await subscriber.disconnect()

        let status = try #require(finalStatus.withLock { $0 }, "the edge's final status never reached the central broker")
        let received = batches.withLock { $0 }
        let sequences = received.keys.sorted()
        print("bridge outage: \(received.count) batches, \(received.values.reduce(0, +)) sightings at the central broker; edge published \(status.counters.published ?? 0) sightings, dropped \(status.counters.dropped ?? 0); \(duplicates.withLock { $0 }) duplicate batch(es) removed by seq")
        #expect(status.counters.dropped == 0)
        #expect(sequences == Array(0...(sequences.last ?? 0)), "missing batches: \(Set(0...(sequences.last ?? 0)).subtracting(sequences).sorted())")
        #expect(UInt64(received.values.reduce(0, +)) == status.counters.published)
        #expect(received.count > 10)
    }
}

struct BridgeTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
