@testable import BeaconMetricsExport
import CoreMetrics
import Testing

/// The exposition text: what swift-metrics records, with a `# HELP` line for every family.
@Suite("Prometheus export")
struct PrometheusExportTests {
    @Test("counters, gauges and timers come out in the text format, each family with its help")
    func exposition() {
        let export = PrometheusExport(help: ["beaconnet_test_things_total": "Things counted.", "beaconnet_test_level": "A level."])
        let factory = export.factory
        Counter(label: "beaconnet_test_things_total", dimensions: [("gateway", "gw-1")], factory: factory).increment(by: 3)
        Counter(label: "beaconnet_test_things_total", dimensions: [("gateway", "gw-2")], factory: factory).increment()
        Gauge(label: "beaconnet_test_level", factory: factory).record(2.5)
        CoreMetrics.Timer(label: "beaconnet_test_duration", factory: factory).recordMilliseconds(20)
        let text = export.exposition()
        #expect(text.contains("# HELP beaconnet_test_things_total Things counted.\n# TYPE beaconnet_test_things_total counter\n"))
        #expect(text.contains(#"beaconnet_test_things_total{gateway="gw-1"} 3"#))
        #expect(text.contains(#"beaconnet_test_things_total{gateway="gw-2"} 1"#))
        #expect(text.contains("# HELP beaconnet_test_level A level.\n# TYPE beaconnet_test_level gauge\nbeaconnet_test_level 2.5"))
        // A family without a description still gets one: promtool wants help for every family.
        #expect(text.contains("# HELP beaconnet_test_duration BeaconNet metric beaconnet_test_duration.\n# TYPE beaconnet_test_duration histogram"))
        #expect(text.contains("beaconnet_test_duration_count 1"))
        let types = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }.count
        let helps = text.split(separator: "\n").filter { $0.hasPrefix("# HELP ") }.count
        #expect(types == 3 && helps == 3)
    }

    @Test("help text is escaped, and existing help lines are kept")
    func escaping() {
        let text = PrometheusExport.addingHelp(
            to: "# TYPE a counter\na 1\n# HELP b Given.\n# TYPE b gauge\nb 2\n", help: ["a": "back\\slash\nnew line", "b": "Other."])
        #expect(text == "# HELP a back\\\\slash\\nnew line\n# TYPE a counter\na 1\n# HELP b Given.\n# TYPE b gauge\nb 2\n")
    }
}
