import Foundation
import Logging
import TestSupport
import Testing
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness

/// The shipped logins on a split central tier: `make-dynsec.sh --broker shard` gives the shard the
/// aggregator's reading login only, `--broker hub` gives the hub its publishing login only, and
/// `beacon-aggregator run` finds both with one `--username` and `--password-file`.
@Suite("Aggregator between a shard and a hub, with the shipped logins")
struct OutputHubLoginTests {
    static let scripts = TestPaths.packageRoot.appendingPathComponent("deploy/scripts").path

    /// Passwords for every login, as make-credentials.sh lays them out (passwords/USER).
    static func passwords(in directory: String) throws -> String {
        let passwords = directory + "/passwords"
        try FileManager.default.createDirectory(atPath: passwords, withIntermediateDirectories: true)
        for user in ["agg-1", "agg-1-out", "sim", "dash"] {
            try "p-\(user)-\(UInt32.random(in: 0...UInt32.max))\n".write(toFile: passwords + "/" + user, atomically: false, encoding: .utf8)
        }
        return passwords
    }

    /// A client logged in as `user`, with its bound client id.
    static func client(_ broker: Broker, _ user: String, passwords: String, clientID: String? = nil) throws -> MQTTClient {
        var configuration = MQTTConfiguration(host: broker.host, port: broker.port, clientID: clientID ?? user)
        configuration.username = user
        configuration.password = try String(contentsOfFile: passwords + "/" + user, encoding: .utf8).trimmingCharacters(in: .newlines)
        configuration.reconnect = .disabled
        return MQTTClient(configuration: configuration, logger: Logger(label: "test.login"))
    }

    @Test("the shard's login reads, the hub's writes: sightings in through the shard, events out on the hub")
    func shippedLogins() async throws {
        let binary = try ServiceIntegrationTests.builtAggregator()
        let directory = try TestDirectory.make("hub-logins").path
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let passwords = try Self.passwords(in: directory)
        try await runCommand("/bin/bash", [Self.scripts + "/make-dynsec.sh", passwords, "--broker", "shard", "--aggregator", "agg-1", "--simulator", "sim"],
                             output: directory + "/shard.json")
        try await runCommand("/bin/bash", [Self.scripts + "/make-dynsec.sh", passwords, "--broker", "hub", "--aggregator", "agg-1", "--dashboard", "dash"],
                             output: directory + "/hub.json")
        try await withBroker(BrokerConfiguration(allowAnonymous: false, dynamicSecurity: directory + "/shard.json")) { shard in
            try await withBroker(BrokerConfiguration(allowAnonymous: false, dynamicSecurity: directory + "/hub.json")) { hub in
                // Each broker knows one of the aggregator's two logins only.
                let publishingOnShard = try Self.client(shard, "agg-1-out", passwords: passwords, clientID: "beacon-aggregator-agg-1-out")
                await #expect(throws: MQTTError.self, "the publishing login on the shard") { try await publishingOnShard.connect() }
                await publishingOnShard.disconnect()
                try await Self.flow(shard: shard, hub: hub, binary: binary, passwords: passwords, directory: directory)
            }
        }
    }

    static func flow(shard: Broker, hub: Broker, binary: String, passwords: String, directory: String) async throws {
        let chain = directory + "/chain.json"
        try JSONEncoder().encode(Fixture.config()).write(to: URL(fileURLWithPath: chain))
        let dashboard = try Self.client(hub, "dash", passwords: passwords)
        try await dashboard.connect()
        let onHub = try await dashboard.subscribe(to: ["beaconnet/events/#", "beaconnet/aggregators/+/status"], qos: .atLeastOnce)
        let aggregator = try ChildProcess(executable: binary, arguments: [
            "run", "--config", chain, "--id", "agg-1", "--port", "\(shard.port)", "--output-port", "\(hub.port)",
            "--username", "agg-1", "--password-file", passwords + "/agg-1", "--status-interval", "0.5",
        ], outputFile: directory + "/aggregator.log")
        defer { aggregator.send(SIGKILL) }
        let edge = try Self.client(shard, "sim", passwords: passwords)
        try await edge.connect()
        let seen = try await withTimeout(readinessLimit, "the enter event on the hub, as the dashboard login reads it") {
            var seen: [String] = []
            var published = false
            for await message in onHub {
                seen.append(message.topic)
                // Online on the hub: the aggregator is subscribed on the shard too (it connects
                // to the hub first, then the shard, and says online after both).
                if !published, message.topic == "beaconnet/aggregators/agg-1/status" {
                    published = true
                    try await LiveTraffic.publish(edge, device: Fixture.phone, from: LiveTraffic.now() - 20_000, seconds: 8, levels: ["gw-a": -58])
                }
                if message.topic == "beaconnet/events/1/10/enter" { break }
            }
            return seen
        }
        #expect(seen.contains("beaconnet/events/1/enter") && seen.contains("beaconnet/events/1/10/enter"), "\(seen)")
        aggregator.send(SIGTERM)
        #expect(await aggregator.waitForExit(timeout: readinessLimit))
        let log = (try? String(contentsOfFile: directory + "/aggregator.log", encoding: .utf8)) ?? ""
        #expect(!log.contains("dropping a message"), "the hub refused a publish: \(log)")
        await edge.disconnect()
        await dashboard.disconnect()
    }
}
