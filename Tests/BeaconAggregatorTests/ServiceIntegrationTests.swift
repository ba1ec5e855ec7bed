import Foundation
import Logging
import MetricsTestKit
import ServiceLifecycle
import TestSupport
import Testing
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
@testable import BeaconAggregator
@testable import BeaconEngine

/// The aggregator against real mosquitto brokers, as `mosquitto_sub` would see it.
@Suite("Aggregator service against a real broker")
struct ServiceIntegrationTests {
    @Test("sightings in: enter/exit events, retained state and occupancy out")
    func sightingsInEventsOut() async throws {
        try await withBroker { broker in try await Self.sightingsInEventsOut(broker) }
    }

    static func sightingsInEventsOut(_ broker: Broker) async throws {
        // The traffic below is 4–20 s old by the wall clock. A clock tick between its two phases
        // (more likely on a loaded machine) would rightly find the device silent for longer than
        // its exit threshold and exit it, and the section change would then be an entry; this test
        // is about what flows out, so the clock ticks stay out of its way.
        let aggregator = try RunningAggregator.start(broker, id: "agg-it") { $0.tickInterval = .seconds(3600) }
        let watch = try await Watcher.start(broker, ["beaconnet/#"])
        try await watch.until("status online") { $0.topic == "beaconnet/aggregators/agg-it/status" && $0.text.contains("\"online\"") }

        let base = LiveTraffic.now() - 20_000
        let publisher = try await LiveTraffic.client(broker)
        try await LiveTraffic.publish(publisher, device: Fixture.phone, from: base, seconds: 8, levels: ["gw-a": -58, "gw-b": -79])
        try await watch.until("store enter") { $0.topic == "beaconnet/events/1/enter" }
        try await watch.until("section 10 enter") { $0.topic == "beaconnet/events/1/10/enter" }
        try await LiveTraffic.publish(publisher, device: Fixture.phone, from: base + 8000, seconds: 8, levels: ["gw-a": -79, "gw-b": -57])
        let moved = try await watch.until("section 20 enter") { $0.topic == "beaconnet/events/1/20/enter" }
        let event = try RegionEvent.decode(moved.payload)
        #expect(event.fromSection == 10 && event.storeName == "Main St" && event.sectionName == "Grocery", "\(moved.text); all: \(watch.messages.filter { $0.topic.hasPrefix("beaconnet/events/") }.map { "\($0.topic) \($0.text)" })")
        try await watch.until("occupancy of the store") { $0.topic == "beaconnet/occupancy/1" && $0.text.contains("\"count\":1") }

        // A late subscriber learns the state at once (retained): didDetermineState.
        let late = try await Watcher.start(broker, ["beaconnet/devices/+/state", "beaconnet/occupancy/1/20"])
        let state = try await late.until("retained state") { $0.topic.hasPrefix("beaconnet/devices/") }
        let decoded = try DeviceState.decode(state.payload)
        #expect(decoded.presence == .inside && decoded.region == .section(SectionRef(store: 1, section: 20)))
        #expect(state.retain)
        try await late.until("retained section occupancy") { $0.topic == "beaconnet/occupancy/1/20" && $0.text.contains("\"count\":1") }

        try await aggregator.stop()
        try await watch.until("status offline on shutdown") { $0.topic == "beaconnet/aggregators/agg-it/status" && $0.text.contains("\"offline\"") }
        await publisher.disconnect()
        await watch.stop()
        await late.stop()
    }

    @Test("malformed and spoofed messages are rejected, counted and copied while valid traffic flows")
    func badMessagesLive() async throws {
        try await withBroker { broker in try await Self.badMessagesLive(broker) }
    }

    static func badMessagesLive(_ broker: Broker) async throws {
        let aggregator = try RunningAggregator.start(broker, id: "agg-bad") {
            $0.statusInterval = .milliseconds(300)
            // The bad messages carry fixed times (September 2026): none may be refused as stale_time.
            $0.maxBatchAge = .seconds(100 * 365 * 86_400)
        }
        let watch = try await Watcher.start(broker, ["beaconnet/events/#", "beaconnet/rejects/+", "beaconnet/aggregators/+/status"])
        try await watch.until("status online") { $0.topic == "beaconnet/aggregators/agg-bad/status" }

        let publisher = try await LiveTraffic.client(broker)
        // Everything MQTT lets a client publish (no wildcards in a topic name).
        let bad = ProcessorTests.badMessages.filter { !$0.0.contains("+") && !$0.0.contains("#") }
        for (topic, payload, _) in bad {
            try await publisher.publish(to: topic, payload: payload, qos: .atLeastOnce, retain: false)
        }
        let base = LiveTraffic.now() - 20_000
        try await LiveTraffic.publish(publisher, device: Fixture.phone, from: base, seconds: 6, levels: ["gw-a": -58])
        try await watch.until("valid traffic still decides") { $0.topic == "beaconnet/events/1/10/enter" }
        let reasons = Set(bad.map(\.2))
        for reason in reasons {
            try await watch.until("a reject copy for \(reason)") { $0.topic == "beaconnet/rejects/agg-bad" && $0.text.contains("\"reason\":\"\(reason)\"") }
        }
        let status = try await watch.until("status counts the rejects") { m in
            guard m.topic == "beaconnet/aggregators/agg-bad/status", let s = try? AggregatorStatus.decode(m.payload) else { return false }
            return s.counters.rejects.values.reduce(0, +) >= UInt64(bad.count)
        }
        let counters = try AggregatorStatus.decode(status.payload).counters
        for reason in reasons { #expect(counters.rejects[reason] != nil, "no count for \(reason)") }
        try await aggregator.stop()
        await publisher.disconnect()
        await watch.stop()
    }

    @Test("a publish the broker refuses (ACL) is dropped and counted; the messages behind it still go out")
    func refusedPublishDropped() async throws {
        // Anonymous clients may read everything and write everything but events.
        let acl = try TestDirectory.make("acl").appendingPathComponent("acl").path
        try """
            topic read beaconnet/#
            topic readwrite beaconnet/sightings/#
            topic readwrite beaconnet/aggregators/#
            topic readwrite beaconnet/devices/#
            topic readwrite beaconnet/occupancy/#
            topic readwrite beaconnet/rejects/#
            topic readwrite beaconnet/stores/#

            """.write(toFile: acl, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: acl) }
        try await withBroker(BrokerConfiguration(extraConfiguration: ["acl_file \(acl)"])) { broker in
            let metrics = TestMetrics()
            let aggregator = try RunningAggregator.start(broker, id: "agg-acl", metrics: metrics) { $0.statusInterval = .milliseconds(200) }
            let service = aggregator.service
            let watch = try await Watcher.start(broker, ["beaconnet/#"])
            try await watch.until("status online") { $0.topic == "beaconnet/aggregators/agg-acl/status" && $0.text.contains("\"online\"") }
            let publisher = try await LiveTraffic.client(broker)
            // Heard until now: from further back the silence rule (6 s at the least) could exit the
            // device before the count below is read, and its refused exit events would count too.
            try await LiveTraffic.publish(publisher, device: Fixture.phone, from: LiveTraffic.now() - 6_000, seconds: 6, levels: ["gw-a": -58])
            // The enter events are refused, and not retried ahead of the rest: the state and
            // occupancy decided with them arrive.
            try await watch.until("the device's state") { $0.topic.hasPrefix("beaconnet/devices/") && $0.text.contains("\"inside\"") }
            try await watch.until("section occupancy") { $0.topic == "beaconnet/occupancy/1/10" && $0.text.contains("\"count\":1") }
            let events = watch.messages.filter { $0.topic.hasPrefix("beaconnet/events/") }.map { "\($0.topic) \($0.text)" }
            #expect(events.isEmpty)
            // The refusals are counted as their acknowledgements are collected, which may be just
            // after the broker forwarded what followed them.
            try await pollUntil("two dropped publishes", explain: { "\(service.droppedPublishes) dropped" }) {
                service.droppedPublishes >= 2
            }
            #expect(service.droppedPublishes == 2)
            let dropped = try metrics.expectCounter("beaconnet_aggregator_publishes_total", [("aggregator", "agg-acl"), ("outcome", "dropped")])
            #expect(dropped.totalValue == 2)
            // ...and reported on the status topic, where the engineer on call looks.
            try await watch.until("dropped publishes on the status") {
                $0.topic == "beaconnet/aggregators/agg-acl/status" && $0.text.contains("\"dropped_publishes\":2")
            }
            try await aggregator.stop()
            await publisher.disconnect()
            await watch.stop()
        }
    }

    /// The built `beacon-aggregator`, for tests that run it as a process.
    static func builtAggregator() throws -> String {
        let binary = LiveTraffic.packageRoot.appendingPathComponent(".build/debug/beacon-aggregator").path
        try #require(FileManager.default.isExecutableFile(atPath: binary), "build the package first (swift build --build-tests): \(binary)")
        return binary
    }

    @Test("kill -9 and restart: state is restored from the retained topics, no enter event is invented")
    func killNineRestart() async throws {
        let binary = try Self.builtAggregator()
        try await withBroker { broker in try await Self.killNineRestart(broker, binary: binary) }
    }

    static func killNineRestart(_ broker: Broker, binary: String) async throws {
        let directory = broker.directory
        let config = directory + "/chain.json"
        let encoder = JSONEncoder()
        try encoder.encode(Fixture.config()).write(to: URL(fileURLWithPath: config))
        let arguments = ["run", "--config", config, "--id", "agg-k9", "--port", "\(broker.port)", "--status-interval", "0.5"]
        let watch = try await Watcher.start(broker, ["beaconnet/events/#", "beaconnet/devices/+/state", "beaconnet/aggregators/+/status"])

        var aggregator = try ChildProcess(executable: binary, arguments: arguments, outputFile: directory + "/agg1.log")
        try await watch.until("first instance online") { $0.topic.hasSuffix("/agg-k9/status") && $0.text.contains("\"online\"") }
        let publisher = try await LiveTraffic.client(broker)
        let base = LiveTraffic.now() - 30_000
        try await LiveTraffic.publish(publisher, device: Fixture.phone, from: base, seconds: 8, levels: ["gw-a": -58], seq: 0)
        try await watch.until("entered section 10") { $0.topic == "beaconnet/events/1/10/enter" }
        // Killed once the broker holds the state to restore.
        try await watch.until("the retained state inside section 10") {
            $0.topic.hasPrefix("beaconnet/devices/") && (try? DeviceState.decode($0.payload))?.region == .section(SectionRef(store: 1, section: 10))
        }

        aggregator.send(SIGKILL)
        #expect(await aggregator.waitForExit(timeout: readinessLimit))
        let before = watch.count { $0.topic.hasSuffix("/enter") }
        watch.clear()

        aggregator = try ChildProcess(executable: binary, arguments: arguments, outputFile: directory + "/agg2.log")
        // The status is retained: the new instance is the one whose counters start again from 0.
        try await watch.until("second instance online") { m in
            guard m.topic.hasSuffix("/agg-k9/status"), let s = try? AggregatorStatus.decode(m.payload) else { return false }
            return s.state == .online && s.counters.messages == 0
        }
        try await LiveTraffic.publish(publisher, device: Fixture.phone, from: base + 8000, seconds: 8, levels: ["gw-a": -58], seq: 8)
        try await watch.until("second instance processed the new sightings") { m in
            guard m.topic.hasSuffix("/agg-k9/status"), let s = try? AggregatorStatus.decode(m.payload) else { return false }
            return s.state == .online && (s.counters.sightings ?? 0) >= 32
        }
        // Nothing may arrive: a quiet spell to catch a spurious enter, not a wait for readiness.
        try await Task.sleep(for: .milliseconds(500))
        let after = watch.messages.filter { $0.topic.hasSuffix("/enter") }
        #expect(before == 2)
        #expect(after.isEmpty, "spurious enter after restart: \(after.map(\.topic))")
        aggregator.send(SIGTERM)
        #expect(await aggregator.waitForExit(timeout: readinessLimit))
        await publisher.disconnect()
        await watch.stop()
    }
}

extension ServiceIntegrationTests {
    @Test("SIGTERM with the broker gone: the aggregator still exits (its drain is bounded)")
    func shutdownWithBrokerDown() async throws {
        let binary = try Self.builtAggregator()
        try await withBroker { broker in try await Self.shutdownWithBrokerDown(broker, binary: binary) }
    }

    static func shutdownWithBrokerDown(_ broker: Broker, binary: String) async throws {
        let config = broker.directory + "/chain.json"
        try JSONEncoder().encode(Fixture.config()).write(to: URL(fileURLWithPath: config))
        let watch = try await Watcher.start(broker, ["beaconnet/aggregators/+/status"])
        let aggregator = try ChildProcess(executable: binary, arguments: ["run", "--config", config, "--id", "agg-down", "--port", "\(broker.port)"],
                                          outputFile: broker.directory + "/agg.log")
        try await watch.until("online") { $0.topic.hasSuffix("/agg-down/status") && $0.text.contains("\"online\"") }
        await watch.stop()
        try await broker.stop()
        // Both of its connections have seen the broker go.
        try await pollUntil("the aggregator to lose both connections") {
            let log = (try? String(contentsOfFile: broker.directory + "/agg.log", encoding: .utf8)) ?? ""
            return log.components(separatedBy: "connection lost").count - 1 >= 2
        }
        aggregator.send(SIGTERM)
        #expect(await aggregator.waitForExit(timeout: readinessLimit), "the aggregator hung on shutdown without a broker")
    }
}
