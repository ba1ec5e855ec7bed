import BeaconCore
import BeaconEdge
import BrokerHarness
import MetricsTestKit
import TestSupport
import Testing

/// The edge's swift-metrics counters and timer, with the gateway as a dimension.
@Suite("Edge metrics", .hangLimit)
struct MetricsTests {
    let gateway = [("gateway", "gw-test-1")]

    @Test("a full outage buffer counts dropped batches and sightings")
    func drops() throws {
        let metrics = TestMetrics()
        let counters = EdgeCounters(gateway: "gw-test-1", metrics: metrics)
        let buffer = try OutageBuffer(maxBatches: 1, counters: counters, logger: testLogger)
        for sequence in 0..<3 { buffer.push(SealedBatch(sequence: UInt64(sequence), sightings: 4, payload: [])) }
        #expect(try metrics.expectCounter("beaconnet_edge_batches_total", gateway + [("outcome", "dropped")]).totalValue == 2)
        #expect(try metrics.expectCounter("beaconnet_edge_sightings_total", gateway + [("outcome", "dropped")]).totalValue == 8)
    }

    @Test("a replay counts reports, skips and acknowledged sightings, and times each publish", .enabled(if: TestData.available, TestData.skipNote))
    func replay() async throws {
        let metrics = TestMetrics()
        let file = try trimmedCsacca()
        try await withBroker { broker in
            let config = EdgeConfig(
                gateway: testGateway, store: 12, section: 3, broker: EdgeConfig.Broker(port: broker.port),
                allowList: AllowList(iBeaconUUIDs: [csaccaUUID]))
            let runtime = try EdgeRuntime(
                config: config, source: .replay(file, path: "csacca.log", speed: .max, timeOffset: 0), logLevel: testLogLevel,
                metrics: metrics)
            try await withTimeout(readinessLimit, "replay") { try await runtime.run(handlingSignals: false) }
            #expect(try metrics.expectCounter("beaconnet_edge_reports_total", gateway).totalValue == 412)
            #expect(try metrics.expectCounter("beaconnet_edge_reports_skipped_total", gateway + [("reason", "filtered")]).totalValue == 401)
            #expect(try metrics.expectCounter("beaconnet_edge_sightings_total", gateway + [("outcome", "published")]).totalValue == 11)
            let batches = try metrics.expectCounter("beaconnet_edge_batches_total", gateway + [("outcome", "published")]).totalValue
            #expect(batches == Int64(runtime.counters.publishedBatches.load(ordering: .relaxed)) && batches > 0)
            #expect(try metrics.expectTimer("beaconnet_edge_publish_duration", gateway).values.count == Int(batches))
        }
    }
}
