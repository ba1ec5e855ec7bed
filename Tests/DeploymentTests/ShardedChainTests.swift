import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

/// The central tier split as docs/SCALING.md says: three shards, each carrying one store's
/// sightings (a store broker bridges each store's topics to its shard, with the shipped
/// store.conf bridge), an aggregator per shard with `--stores` reading its shard and publishing
/// to one output hub, and the simulator as every gateway. The hub is restarted while the events
/// flow (its persistence keeps the consumers' sessions): every event each aggregator decided
/// reaches the hub's consumer, none reaches a shard, no device enters a region twice without an
/// exit between, and each aggregator's status on the hub names the stores it serves.
@Suite("Chain scale: shards, an output hub and a standby", .serialized, .hangLimit)
struct ShardedChainTests {
    static let stores: [StoreNumber] = [101, 102, 103]

    /// The shipped store.conf bridge, once per shard: store `store`'s sightings (and every
    /// gateway status) to the shard at `port`.
    static func bridges(to ports: [Int]) throws -> [String] {
        try zip(stores, ports).flatMap { store, port in
            try BridgeOutageTests.bridgeLines(port: port, password: "unused").compactMap { line -> String? in
                if line.hasPrefix("connection ") { return "connection shard-\(store)" }
                if line.hasPrefix("remote_clientid ") { return "remote_clientid bridge-\(store)" }
                if line.hasPrefix("remote_username ") || line.hasPrefix("remote_password ") { return nil }
                if line.hasPrefix("topic beaconnet/sightings/") { return "topic beaconnet/sightings/\(store)/# out 1" }
                return line
            }
        }
    }

    @Test func everyEventOfEveryShardReachesTheHub() async throws {
        let aggregatorBinary = try #require(TestPaths.builtExecutable("beacon-aggregator"), "build the package first (swift build --build-tests)")
        let simBinary = try #require(TestPaths.builtExecutable("beacon-sim"), "build the package first (swift build --build-tests)")
        try await RunningParts.with { parts in
            let shards = try await [Broker.start(), Broker.start(), Broker.start()]
            parts.brokers += shards
            let hub = try await Broker.start(BrokerConfiguration(persistence: true, extraConfiguration: ["max_queued_messages 200000"]))
            parts.brokers.append(hub)
            let storeBroker = try await Broker.start(BrokerConfiguration(extraConfiguration: try Self.bridges(to: shards.map(\.port))))
            parts.brokers.append(storeBroker)
            for (store, shard) in zip(Self.stores, shards) {
                try await untilBridged(store: storeBroker, central: shard, topic: "beaconnet/sightings/\(store)/bridge-probe")
            }
            let onHub = try await Self.hubConsumer(hub)
            parts.watchers.append(onHub)
            for (index, shard) in shards.enumerated() {
                parts.watchers.append(try await Watcher.start(
                    MQTTClient(configuration: MQTTConfiguration(host: shard.host, port: shard.port, clientID: "shard-watch-\(index)"),
                               logger: Logger(label: "test.shard")), filters: ["beaconnet/events/#", "beaconnet/devices/#", "beaconnet/occupancy/#"]))
            }

            let directory = try TestDirectory.make("sharded-chain").path
            try await runCommand(simBinary, ["chain"], output: "\(directory)/chain.json")
            var metrics: [Int] = []
            for (store, shard) in zip(Self.stores, shards) {
                let port = try Broker.unusedPort()
                metrics.append(port)
                parts.processes.append(try ChildProcess(executable: aggregatorBinary, arguments: [
                    "run", "--config", "\(directory)/chain.json", "--id", "agg-\(store)", "--stores", "\(store)", "--event-time",
                    "--port", "\(shard.port)", "--output-port", "\(hub.port)", "--metrics", "127.0.0.1:\(port)", "--status-interval", "1",
                ], outputFile: "\(directory)/agg-\(store).log"))
            }
            let expected = Set(Self.stores.map { "agg-\($0) \($0)" })
            try await pollUntil("each aggregator's status on the hub, naming its store") { Self.servedStores(onHub) == expected }
            let sim = try ChildProcess(executable: simBinary, arguments: [
                "run", "--host", "127.0.0.1", "--port", "\(storeBroker.port)", "--rate", "20", "--duration", "600", "--seed", "21", "--truth", "\(directory)/truth.txt",
                "--arrival-interval", "6",
            ], outputFile: "\(directory)/sim.log")
            parts.processes.append(sim)
            let logs = { ["agg-101", "agg-102", "agg-103", "sim"].map { name in
                "--- \(name)\n" + String(((try? String(contentsOfFile: "\(directory)/\(name).log", encoding: .utf8)) ?? "").suffix(1500))
            }.joined(separator: "\n") }
            try await pollUntil("events of every store on the hub", explain: { "stores with events: \(Self.storesWithEvents(onHub))\n\(logs())" }) {
                Self.storesWithEvents(onHub) == Set(Self.stores)
            }
            #expect(sim.isRunning, "the hub is restarted while the simulator publishes")
            try await hub.stop()
            try await hub.start()
            #expect(await sim.waitForExit(timeout: readinessLimit) && sim.exitStatus == 0, "the simulator did not finish cleanly")

            // Equal twice in a row, a second apart: not a moment when an aggregator is between two events.
            var decided = 0, agreed = 0
            let delivered: [RegionEvent] = try await pollAsync(
                "every event decided on the hub", every: .seconds(1), explain: { "decided \(decided), on the hub \(Self.events(onHub).count)" }
            ) {
                decided = try await Self.decided(metrics)
                let delivered = Self.events(onHub)
                agreed = decided > 0 && delivered.count == decided ? agreed + 1 : 0
                return agreed >= 2 ? delivered : nil
            }
            let perStore = Dictionary(grouping: delivered) { (event: RegionEvent) in event.region.store }.mapValues { $0.count }
            print("sharded chain: \(decided) events decided by 3 aggregators, \(delivered.count) distinct on the hub, per store \(perStore.sorted { $0.key < $1.key })")
            #expect(Set(perStore.keys) == Set(Self.stores))
            #expect(parts.watchers.dropFirst().allSatisfy { $0.received.isEmpty }, "nothing decided reaches a shard")
            // Per device and region, in the device's event order: enter, exit, enter, … never two enters in a row.
            let sequences = Dictionary(grouping: delivered) { (event: RegionEvent) in "\(event.device) \(event.region)" }
            for (key, events) in sequences {
                let kinds: [RegionTransition] = events.sorted { $0.sequence < $1.sequence }.map { $0.kind }
                #expect(zip(kinds, kinds.dropFirst()).allSatisfy { $0 != $1 }, "\(key): \(kinds)")
            }
        }
    }

    /// A consumer of the hub's events and statuses with a persistent session: the broker keeps
    /// its queue across a restart.
    static func hubConsumer(_ hub: Broker) async throws -> Watcher {
        var consumer = MQTTConfiguration(host: hub.host, port: hub.port, clientID: "hub-consumer")
        consumer.cleanSession = false
        consumer.reconnect = MQTTReconnectPolicy(minimumDelay: .milliseconds(200), maximumDelay: .seconds(1), exponentialBackoff: false)
        return try await Watcher.start(MQTTClient(configuration: consumer, logger: Logger(label: "test.hub")),
                                       filters: ["beaconnet/events/#", "beaconnet/aggregators/+/status"])
    }

    /// The distinct events the hub's consumer received.
    static func events(_ watcher: Watcher) -> [RegionEvent] {
        distinctEvents(watcher.received)
    }

    /// `id store` of each online aggregator status the hub's consumer received.
    static func servedStores(_ watcher: Watcher) -> Set<String> {
        var served = Set<String>()
        for message in watcher.received where message.topic.hasPrefix("beaconnet/aggregators/") {
            guard let status = try? AggregatorStatus.decode(message.payload), status.state == .online, let stores = status.stores else { continue }
            served.insert("\(status.aggregator) \(stores)")
        }
        return served
    }

    static func storesWithEvents(_ watcher: Watcher) -> Set<StoreNumber> {
        Set(events(watcher).map { $0.region.store })
    }

    /// The transitions the aggregators whose metrics are at `ports` decided, summed.
    static func decided(_ ports: [Int]) async throws -> Int {
        var total = 0
        for port in ports {
            guard let count = MetricsText.sum(try await HTTPProbe(port: port).get("/metrics").text, "beaconnet_aggregator_transitions_total") else { return 0 }
            total += Int(count)
        }
        return total
    }
}
