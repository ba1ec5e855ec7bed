import Foundation
import TestSupport
import Testing
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
@testable import BeaconAggregator

/// The aggregator between two real mosquitto brokers: it reads sightings from its shard and
/// publishes everything to the output hub, where it also reads its retained states back.
@Suite("Aggregator between a shard and an output hub")
struct OutputHubTests {
    @Test("sightings from the shard: events, states, occupancy, layouts and status reach the hub, none the shard")
    func outputsOnTheHub() async throws {
        try await withBroker { shard in
            try await withBroker { hub in try await Self.outputsOnTheHub(shard: shard, hub: hub) }
        }
    }

    static func outputsOnTheHub(shard: Broker, hub: Broker) async throws {
        // Everything the shard carries from before the aggregator connects.
        let onShard = try await Watcher.start(shard, ["beaconnet/#"])
        let onHub = try await Watcher.start(hub, ["beaconnet/#"])
        let aggregator = try RunningAggregator.start(shard, id: "agg-hub") {
            $0.output = MQTTConfiguration(host: hub.host, port: hub.port, clientID: "agg-hub-out")
            // Traffic from the past would be exited by the first clock tick; this test is about
            // where the messages go, not when.
            $0.tickInterval = .seconds(3600)
        }
        try await onHub.until("status online on the hub") { $0.topic == "beaconnet/aggregators/agg-hub/status" && $0.text.contains("\"online\"") }
        try await onHub.until("the store's layout on the hub") { $0.topic == "beaconnet/stores/1/layout" }

        let edge = try await LiveTraffic.client(shard)
        try await LiveTraffic.publish(edge, device: Fixture.phone, from: LiveTraffic.now() - 20_000, seconds: 8, levels: ["gw-a": -58, "gw-b": -79])
        try await onHub.until("store enter on the hub") { $0.topic == "beaconnet/events/1/enter" }
        try await onHub.until("section enter on the hub") { $0.topic == "beaconnet/events/1/10/enter" }
        try await onHub.until("the device's state on the hub") { $0.topic.hasPrefix("beaconnet/devices/") && $0.text.contains("\"inside\"") }
        try await onHub.until("occupancy on the hub") { $0.topic == "beaconnet/occupancy/1" && $0.text.contains("\"count\":1") }
        try await aggregator.stop()
        try await onHub.until("status offline on the hub") { $0.topic == "beaconnet/aggregators/agg-hub/status" && $0.text.contains("\"offline\"") }

        // The shard carried the sightings in, and nothing out: not even the restore's marker.
        let sightings = onShard.count { $0.topic.hasPrefix("beaconnet/sightings/1/") }
        let strays = onShard.messages.filter { !$0.topic.hasPrefix("beaconnet/sightings/") }.map(\.topic)
        #expect(sightings == 8 * 4)
        #expect(strays.isEmpty, "published on the shard: \(strays)")
        #expect(onHub.count { $0.topic.hasPrefix("beaconnet/sightings/") } == 0)
        await edge.disconnect()
        await onShard.stop()
        await onHub.stop()
    }

    @Test("kill -9 and restart with --output-port: the Will on the hub, the states restored from the hub, no second enter")
    func restartRestoresFromTheHub() async throws {
        let binary = try ServiceIntegrationTests.builtAggregator()
        try await withBroker { shard in
            try await withBroker { hub in try await Self.restartRestoresFromTheHub(shard: shard, hub: hub, binary: binary) }
        }
    }

    static func restartRestoresFromTheHub(shard: Broker, hub: Broker, binary: String) async throws {
        let directory = hub.directory
        let config = directory + "/chain.json"
        try JSONEncoder().encode(Fixture.config()).write(to: URL(fileURLWithPath: config))
        let arguments = ["run", "--config", config, "--id", "agg-hk9", "--port", "\(shard.port)", "--output-port", "\(hub.port)", "--status-interval", "0.5"]
        let onHub = try await Watcher.start(hub, ["beaconnet/events/#", "beaconnet/devices/+/state", "beaconnet/aggregators/+/status"])
        let onShard = try await Watcher.start(shard, ["beaconnet/events/#", "beaconnet/devices/+/state", "beaconnet/aggregators/+/status"])

        var aggregator = try ChildProcess(executable: binary, arguments: arguments, outputFile: directory + "/agg1.log")
        try await onHub.until("first instance online") { $0.topic.hasSuffix("/agg-hk9/status") && $0.text.contains("\"online\"") }
        let edge = try await LiveTraffic.client(shard)
        let base = LiveTraffic.now() - 30_000
        try await LiveTraffic.publish(edge, device: Fixture.phone, from: base, seconds: 8, levels: ["gw-a": -58], seq: 0)
        try await onHub.until("entered section 10") { $0.topic == "beaconnet/events/1/10/enter" }
        try await onHub.until("the retained state inside section 10") {
            $0.topic.hasPrefix("beaconnet/devices/") && (try? DeviceState.decode($0.payload))?.region == .section(SectionRef(store: 1, section: 10))
        }

        aggregator.send(SIGKILL)
        #expect(await aggregator.waitForExit(timeout: readinessLimit))
        // The Last Will is the events connection's: on the hub, where the status is.
        try await onHub.until("the Last Will on the hub") { $0.topic.hasSuffix("/agg-hk9/status") && $0.text.contains("\"offline\"") }
        let before = onHub.count { $0.topic.hasSuffix("/enter") }
        onHub.clear()

        aggregator = try ChildProcess(executable: binary, arguments: arguments, outputFile: directory + "/agg2.log")
        try await onHub.until("second instance online") { m in
            guard m.topic.hasSuffix("/agg-hk9/status"), let s = try? AggregatorStatus.decode(m.payload) else { return false }
            return s.state == .online && s.counters.messages == 0
        }
        try await LiveTraffic.publish(edge, device: Fixture.phone, from: base + 8000, seconds: 8, levels: ["gw-a": -58], seq: 8)
        try await onHub.until("second instance processed the new sightings") { m in
            guard m.topic.hasSuffix("/agg-hk9/status"), let s = try? AggregatorStatus.decode(m.payload) else { return false }
            return s.state == .online && (s.counters.sightings ?? 0) >= 32
        }
        // Nothing may arrive: a quiet spell to catch a spurious enter, not a wait for readiness.
        try await Task.sleep(for: .milliseconds(500))
        let after = onHub.messages.filter { $0.topic.hasSuffix("/enter") }
        #expect(before == 2)
        #expect(after.isEmpty, "spurious enter after restart: \(after.map(\.topic))")
        aggregator.send(SIGTERM)
        #expect(await aggregator.waitForExit(timeout: readinessLimit))
        #expect(onShard.messages.isEmpty, "published on the shard: \(onShard.messages.map(\.topic))")
        await edge.disconnect()
        await onHub.stop()
        await onShard.stop()
    }
}
