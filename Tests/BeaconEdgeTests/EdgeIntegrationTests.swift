import BeaconCore
import BeaconEdge
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The whole edge against a real mosquitto: replay a capture through the services, stop the broker
/// in the middle, start it again, and check with a subscriber that every sighting arrived once,
/// in order — or that the drop count accounts exactly for what is missing.
///
/// Duplicates: a batch in flight when the broker stops may reach the subscriber twice (QoS 1 is
/// at least once: libmosquitto resends it after the reconnect). The checks dedupe by `seq` — as
/// the aggregator does — and everything else is exact.
@Suite("Edge against mosquitto", .hangLimit, .enabled(if: TestData.available, TestData.skipNote))
struct EdgeIntegrationTests {
    func config(port: Int, maxBatches: Int = 3600, spill: String? = nil) throws -> EdgeConfig {
        var config = EdgeConfig(
            gateway: testGateway, store: 12, section: 3, broker: EdgeConfig.Broker(port: port), allowList: .everything,
            batchWindowMilliseconds: 100, buffer: EdgeConfig.Buffer(maxBatches: maxBatches, spillFile: spill, memoryBatches: 2),
            statusIntervalSeconds: 1)
        config.broker.keepAliveSeconds = 5
        return config
    }

    /// Runs the edge over `file` at `speed`, calling `during` while it runs; returns the runtime.
    /// Its flush at the end may take as long as any readiness wait: on a busy machine the broker
    /// can take its time to acknowledge a burst.
    func replay(
        _ file: BtsnoopFile, config: EdgeConfig, speed: BtsnoopReplay.Speed,
        during: @escaping @Sendable () async throws -> Void = {}
    ) async throws -> EdgeRuntime {
        let runtime = try EdgeRuntime(
            config: config, source: .replay(file, path: "csacca.log", speed: speed, timeOffset: 0), flushTimeout: readinessLimit / 2,
            logLevel: testLogLevel)
        try await withTimeout(readinessLimit, "the edge's replay") {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { try await runtime.run(handlingSignals: false) }
                group.addTask { try await during() }
                try await group.waitForAll()
            }
        }
        return runtime
    }

    /// Dedupes batches by `seq` (first copy wins) and checks that what is left came in order.
    func unique(_ batches: [SightingBatch]) -> [SightingBatch] {
        var seen = Set<UInt64>()
        let result = batches.filter { seen.insert($0.sequence).inserted }
        #expect(result.map(\.sequence) == result.map(\.sequence).sorted(), "batches out of order")
        return result
    }

    func keys(_ batches: [SightingBatch]) -> [SightingKey] {
        batches.flatMap(\.sightings).map { SightingKey(device: $0.device.rawValue, time: $0.time, rssi: $0.rssi) }
    }

    @Test("a replay at full speed: every sighting once, in order, then exit with everything acknowledged")
    func fullSpeed() async throws {
        let file = try trimmedCsacca()
        let expected = try expectedSightings(of: file, allow: .everything)
        try await withBroker(BrokerConfiguration(persistence: true)) { broker in
            let watcher = try await Watcher(broker: broker)
            let runtime = try await replay(file, config: try config(port: broker.port), speed: .max)
            #expect(runtime.unflushedBatches == 0)
            let published = Int(runtime.counters.publishedBatches.load(ordering: .relaxed))
            try await watcher.wait(for: "the final status") { $0.finalStatus != nil }
            let batches = unique(watcher.batches)
            #expect(batches.count == published)
            #expect(batches.map(\.sequence) == Array(0..<UInt64(published)))
            #expect(keys(batches) == expected)
            let final = try #require(watcher.finalStatus)
            #expect(final.state == .offline)
            #expect(final.counters.published == UInt64(expected.count))
            #expect(final.counters.reports == 412 && final.counters.dropped == 0 && final.counters.buffered == 0)
            #expect(final.section == SectionRef(store: 12, section: 3))
            await watcher.stop()
        }
    }

    @Test("the broker stops in the middle and comes back: nothing lost, order kept (duplicates by seq removed)")
    func outage() async throws {
        let file = try trimmedCsacca()
        let expected = try expectedSightings(of: file, allow: .everything)
        try await withBroker(BrokerConfiguration(persistence: true)) { broker in
            let watcher = try await Watcher(broker: broker)
            let runtime = try await replay(file, config: try config(port: broker.port), speed: .factor(5)) {
                // Stopped once the edge is connected and sending: a busy machine may take longer
                // than the pause below to connect at all.
                _ = try await pollAsync("the edge's first connection") { broker.log.contains("as gw-test-1") ? true : nil }
                try await Task.sleep(for: .milliseconds(800))
                try await broker.stop()
                try await Task.sleep(for: .milliseconds(700))
                try await broker.start()
            }
            #expect(runtime.unflushedBatches == 0)
            #expect(runtime.counters.dropped.load(ordering: .relaxed) == 0)
            try await watcher.wait(for: "the final status") { $0.finalStatus != nil }
            let batches = unique(watcher.batches)
            let published = Int(runtime.counters.publishedBatches.load(ordering: .relaxed))
            #expect(batches.map(\.sequence) == Array(0..<UInt64(published)))
            #expect(keys(batches) == expected)
            // The edge really lost the broker and came back: two connections in the broker's log.
            let connections = broker.log.components(separatedBy: "as gw-test-1").count - 1
            #expect(connections >= 2, "\(broker.log)")
            await watcher.stop()
        }
    }

    @Test("a long outage with a small buffer: the oldest batches are dropped and the counts say exactly how many")
    func drops() async throws {
        let file = try trimmedCsacca()
        let expected = try expectedSightings(of: file, allow: .everything)
        try await withBroker(BrokerConfiguration(persistence: true)) { broker in
            let watcher = try await Watcher(broker: broker)
            let runtime = try await replay(file, config: try config(port: broker.port, maxBatches: 3), speed: .factor(5)) {
                try await Task.sleep(for: .milliseconds(500))
                try await broker.stop()
                try await Task.sleep(for: .milliseconds(1500))
                try await broker.start()
            }
            #expect(runtime.unflushedBatches == 0)
            try await watcher.wait(for: "the final status") { $0.finalStatus != nil }
            let batches = unique(watcher.batches)
            let received = keys(batches)
            let droppedBatches = Int(runtime.counters.droppedBatches.load(ordering: .relaxed))
            let dropped = Int(runtime.counters.dropped.load(ordering: .relaxed))
            let sealed = Int(runtime.counters.publishedBatches.load(ordering: .relaxed)) + droppedBatches
            #expect(droppedBatches > 0, "the outage was too short to fill the buffer")
            // Every batch is either received or counted as dropped, and the same for sightings.
            #expect(batches.count + droppedBatches == sealed)
            #expect(Set(batches.map(\.sequence)).isDisjoint(with: []) && batches.last?.sequence == UInt64(sealed - 1))
            #expect(received.count + dropped == expected.count)
            #expect(isSubsequence(received, of: expected))
            let final = try #require(watcher.finalStatus)
            #expect(final.state == .offline && final.counters.dropped == UInt64(dropped))
            await watcher.stop()
        }
    }

    @Test("the retained status says online while the edge runs, and the Last Will says offline when it dies")
    func statusAndWill() async throws {
        try await withBroker { broker in
            let watcher = try await Watcher(broker: broker)
            // A client with the edge's own MQTT configuration: the will is what the edge leaves.
            let config = try config(port: broker.port)
            var mqtt = BrokerSession.configuration(for: config, scheme: .standard)
            mqtt.reconnect = .disabled
            let client = MQTTClient(configuration: mqtt, logger: testLogger)
            try await client.connect()
            let reporter = StatusReporter(
                gateway: config.gateway, section: SectionRef(store: 12, section: 3), adapter: "hci0", counters: EdgeCounters(),
                buffer: try OutageBuffer(maxBatches: 1, counters: EdgeCounters(), logger: testLogger), scheme: .standard)
            await reporter.publish(on: client, state: .online, logger: testLogger)
            try await watcher.wait(for: "online") { $0.statuses.last?.state == .online }
            #expect(watcher.statuses.last?.adapter == "hci0" && watcher.statuses.last?.version == StatusReporter.version)
            client.simulateConnectionLoss()
            try await watcher.wait(for: "the will") { $0.statuses.last?.state == .offline }
            let retained = watcher.received.filter { $0.topic == "beaconnet/gateways/gw-test-1/status" }
            #expect(retained.count >= 2)
            await client.disconnect()
            await watcher.stop()
        }
    }
}
