import MetricsTestKit
import TestSupport
import Testing
import BeaconCore
import BeaconMQTT
import BeaconWire
@testable import BeaconAggregator
@testable import BeaconEngine

/// What the status topic (and the metrics) say about a gateway's stream and about gateways the
/// chain does not have.
@Suite("Aggregator status: per-gateway streams and unknown gateways")
struct StatusCountersTests {
    let t0 = ProcessorTests.t0
    let topic = "beaconnet/sightings/1/gw-a"

    private func batch(_ seq: UInt64, sent: Int64, epoch: Int64? = nil) -> [UInt8] {
        SightingBatch(gateway: try! GatewayID("gw-a"), sequence: seq, sent: sent, sightings: [], epoch: epoch).encoded()
    }

    @Test("a forged seq of 2^53 − 1: the edge's batches are still decided, the status counts one anomaly and no loss; repeats are counted per gateway")
    func forgedSeq() throws {
        var p = try ProcessorTests.processor()
        var out: [Outbound] = []
        for k in 0..<10 { p.handle(topic: topic, payload: batch(UInt64(k), sent: t0 + Int64(k) * 1000, epoch: t0), now: nil, into: &out) }
        p.handle(topic: topic, payload: batch((1 << 53) - 1, sent: t0 + 9_500, epoch: t0), now: nil, into: &out)
        p.handle(topic: topic, payload: batch(9, sent: t0 + 9_000, epoch: t0), now: nil, into: &out)  // a redelivery
        for k in 10..<20 { p.handle(topic: topic, payload: batch(UInt64(k), sent: t0 + Int64(k) * 1000, epoch: t0), now: nil, into: &out) }
        #expect(p.engine.statistics.batches == 21, "every batch but the repeat is decided")
        let counters = p.status(now: t0 + 20_000, version: "t").counters
        let gw = try GatewayID("gw-a")
        #expect(counters.loss.isEmpty, "\(counters.loss)")
        #expect(counters.seqAnomalies == [gw: 1] && counters.duplicates == [gw: 1])
        let decoded = try AggregatorStatus.decode(p.status(now: t0 + 20_000, version: "t").encoded())
        #expect(decoded.counters.seqAnomalies == [gw: 1] && decoded.counters.duplicates == [gw: 1])
    }

    @Test("live: a forged far seq sent seconds ahead moves neither the lag nor the newest batch; its sightings still count")
    func forgedSeqMovesNoClock() throws {
        var p = try ProcessorTests.processor()
        var out: [Outbound] = []
        let now = t0 + 10_000
        for k in 0..<10 { p.handle(topic: topic, payload: batch(UInt64(k), sent: t0 + Int64(k) * 1000, epoch: t0), now: t0 + Int64(k) * 1000 + 300, into: &out) }
        let before = p.status(now: now, version: "t").counters
        let forged = p.handle(topic: topic, payload: batch((1 << 53) - 1, sent: now + 10_000, epoch: t0), now: now, into: &out)
        #expect(forged == .accepted, "its sightings are decided")
        let after = p.status(now: now, version: "t").counters
        #expect(after.lagMilliseconds == before.lagMilliseconds && after.lagMilliseconds.map { $0 > 0 } == true, "\(String(describing: after.lagMilliseconds))")
        #expect(p.counters.newestSent == t0 + 9_000)
        #expect(after.seqAnomalies == [try GatewayID("gw-a"): 1])
    }

    @Test("statuses of gateways the chain does not have are counted on the status topic and in the metrics")
    func unknownGatewayStatuses() throws {
        let metrics = TestMetrics()
        let decisions = try MetricsTests.decisions(metrics)
        let stranger = GatewayStatus(gateway: try GatewayID("gw-zz"), state: .online, time: t0)
        decisions.decide(MQTTMessage(topic: "beaconnet/gateways/gw-zz/status", payload: stranger.encoded()))
        decisions.decide(MQTTMessage(topic: "beaconnet/gateways/gw-zz/status", payload: GatewayStatus(gateway: try GatewayID("gw-zz"), state: .offline).encoded()))
        // A known gateway's status is no stranger's.
        decisions.decide(MQTTMessage(topic: "beaconnet/gateways/gw-a/status", payload: GatewayStatus(gateway: try GatewayID("gw-a"), state: .offline).encoded()))
        let status = try AggregatorStatus.decode(decisions.status(online: true).payload)
        #expect(status.counters.unknownGatewayStatuses == 2)
        #expect(try metrics.expectCounter("beaconnet_aggregator_unknown_gateway_statuses_total", [("aggregator", "agg-test")]).totalValue == 2)
    }
}
