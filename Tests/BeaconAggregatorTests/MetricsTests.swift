import BeaconCore
import BeaconMQTT
import BeaconWire
import Logging
import MetricsTestKit
import TestSupport
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

/// The aggregator's swift-metrics counters and gauges, with the instance (and the reject reason,
/// the gateway) as dimensions.
@Suite("Aggregator metrics")
struct MetricsTests {
    let instance = [("aggregator", "agg-test")]

    static func decisions(_ metrics: TestMetrics) throws -> Decisions {
        // The clock of the traffic (ProcessorTests.t0), which a wall clock would find stale.
        let settings = AggregatorSettings(
            chain: try Fixture.config().resolve(), mqtt: MQTTConfiguration(host: "127.0.0.1", port: 1, clientID: "agg-test"),
            aggregator: try AggregatorID("agg-test"), version: "test", clock: { ProcessorTests.t0 + 20_000 })
        var logger = Logger(label: "test.aggregator")
        logger.logLevel = .critical
        return Decisions(settings: settings, metrics: AggregatorMetrics(aggregator: settings.aggregator, factory: metrics), logger: logger)
    }

    @Test("every message is counted by outcome, rejects by reason; batches, sightings and transitions as the processor counts them")
    func decisionsCounted() throws {
        let metrics = TestMetrics()
        let decisions = try Self.decisions(metrics)
        let valid = ProcessorTests.validTraffic()
        for (topic, payload) in valid { decisions.decide(MQTTMessage(topic: topic, payload: payload)) }
        for (topic, payload, _) in ProcessorTests.badMessages { decisions.decide(MQTTMessage(topic: topic, payload: payload)) }
        // A batch of gw-b again (a redelivery after a reconnect), and a topic this aggregator does not read.
        decisions.decide(MQTTMessage(topic: valid[1].0, payload: valid[1].1))
        decisions.decide(MQTTMessage(topic: "beaconnet/occupancy/1", payload: Array("{}".utf8)))

        let reasons = Dictionary(ProcessorTests.badMessages.map { ($0.2, 1) }, uniquingKeysWith: +)
        #expect(try metrics.expectCounter("beaconnet_aggregator_messages_total", instance + [("outcome", "accepted")]).totalValue == Int64(valid.count + 1))
        #expect(try metrics.expectCounter("beaconnet_aggregator_messages_total", instance + [("outcome", "rejected")]).totalValue
                == Int64(ProcessorTests.badMessages.count))
        #expect(try metrics.expectCounter("beaconnet_aggregator_messages_total", instance + [("outcome", "ignored")]).totalValue == 1)
        for (reason, count) in reasons {
            #expect(try metrics.expectCounter("beaconnet_aggregator_rejects_total", instance + [("reason", reason)]).totalValue == Int64(count), "\(reason)")
        }
        // The valid batches, and the one whose only sighting was refused for its time.
        #expect(try metrics.expectCounter("beaconnet_aggregator_batches_total", instance).totalValue == Int64(valid.count + 1))
        #expect(try metrics.expectCounter("beaconnet_aggregator_sightings_total", instance).totalValue == Int64(decisions.processedSightings))
        // Store 1 and section 10 entered, then section 10 left for section 20.
        #expect(try metrics.expectCounter("beaconnet_aggregator_transitions_total", instance).totalValue == 4)

        // The gauges and the per-gateway metrics come with the status.
        _ = decisions.status(online: true)
        #expect(try metrics.expectGauge("beaconnet_aggregator_devices", instance).lastValue == 1)
        #expect(try metrics.expectGauge("beaconnet_aggregator_lag_seconds", instance).lastValue != nil)
        let gatewayB = instance + [("gateway", "gw-b")]
        #expect(try metrics.expectCounter("beaconnet_aggregator_gateway_duplicate_batches_total", gatewayB).totalValue == 1)
        #expect(try metrics.expectGauge("beaconnet_aggregator_gateway_lost_batches", gatewayB).lastValue == 0)
        #expect(try metrics.expectGauge("beaconnet_aggregator_gateway_restart_gap_batches", gatewayB).lastValue == 0)
        // Refreshed again, the counter moves only by what is new.
        _ = decisions.status(online: true)
        #expect(try metrics.expectCounter("beaconnet_aggregator_gateway_duplicate_batches_total", gatewayB).totalValue == 1)
    }

    @Test("the outbox counts what the broker acknowledged and what was given up")
    func publishes() throws {
        let metrics = TestMetrics()
        let decisions = try Self.decisions(metrics)
        decisions.outbox.enqueue([decisions.status(online: true), decisions.status(online: true)])
        #expect(decisions.outbox.backlog == 2)
        decisions.outbox.settlePublished()
        #expect(decisions.outbox.settleDropped() == 1)
        #expect(decisions.outbox.backlog == 0 && decisions.outbox.dropped == 1)
        #expect(try metrics.expectCounter("beaconnet_aggregator_publishes_total", instance + [("outcome", "published")]).totalValue == 1)
        #expect(try metrics.expectCounter("beaconnet_aggregator_publishes_total", instance + [("outcome", "dropped")]).totalValue == 1)
    }
}
