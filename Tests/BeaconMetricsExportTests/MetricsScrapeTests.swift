import TestSupport
import Testing

/// `--metrics HOST:PORT` of the real beacon-aggregator and beacon-edge against a real broker:
/// what the issue asks to see (sightings in, rejects by reason, events out, devices tracked, lag,
/// per-gateway loss and batches), and what `promtool check metrics` makes of it.
@Suite("Prometheus /metrics of the real programs", .serialized, .hangLimit)
struct MetricsScrapeTests {
    @Test("beacon-aggregator: sightings, rejects by reason, events, devices, lag, per-gateway loss and batches")
    func aggregator() async throws {
        let text = try await Scrape.aggregator()
        for family in ["messages_total", "rejects_total", "batches_total", "sightings_total", "transitions_total", "publishes_total",
                       "devices", "lag_seconds", "gateway_batches_total", "gateway_lost_batches", "gateway_duplicate_batches_total"] {
            #expect(text.contains("# TYPE beaconnet_aggregator_\(family) "), "\(family) missing")
            #expect(text.contains("# HELP beaconnet_aggregator_\(family) "), "\(family) has no help")
        }
        #expect((MetricsText.value(text, "beaconnet_aggregator_devices", [#"aggregator="agg-metrics""#]) ?? 0) > 0)
        #expect(MetricsText.value(text, "beaconnet_aggregator_gateway_lost_batches", [#"gateway="gw-101-1a""#]) != nil)
    }

    @Test("beacon-edge: reports, published batches and sightings, publish durations")
    func edge() async throws {
        let text = try await Scrape.edge()
        #expect((MetricsText.value(text, "beaconnet_edge_sightings_total", [#"gateway="gw-metrics""#, #"outcome="published""#]) ?? 0) > 0)
        #expect(text.contains("# TYPE beaconnet_edge_publish_duration histogram"))
        #expect(text.contains("# HELP beaconnet_edge_reports_skipped_total "))
    }

    @Test(
        "promtool check metrics accepts both programs' /metrics",
        .enabled(if: Scrape.promtool != nil,
                 "no promtool here (deploy/scripts/install-deps.sh installs Debian's prometheus): the promtool check is skipped"))
    func promtool() async throws {
        let promtool = try #require(Scrape.promtool)
        try await Scrape.promtoolCheck(try await Scrape.aggregator(), name: "aggregator", promtool: promtool)
        try await Scrape.promtoolCheck(try await Scrape.edge(), name: "edge", promtool: promtool)
    }
}
