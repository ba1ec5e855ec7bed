public import CoreMetrics
public import Prometheus

/// A process's metrics in Prometheus's text format: swift-prometheus's registry behind the
/// swift-metrics factory the process bootstraps, so the counters BeaconNet already records through
/// swift-metrics (``help`` names them) are what `/metrics` shows.
///
/// swift-metrics carries no description, and swift-prometheus refuses a second registration of a
/// name with other help text, so descriptions are added when the text is written: a `# HELP`
/// line before each family's `# TYPE` line, from ``help`` (`promtool check metrics` wants one
/// for every family).
public struct PrometheusExport: Sendable {
    /// Where the metrics are kept.
    public let registry: PrometheusCollectorRegistry
    /// A description per metric family name; names missing here get a generic one.
    public let help: [String: String]

    /// An export with a fresh registry and the descriptions `help`, and those of the HTTP
    /// listeners' own families (``HTTPListenerStatistics/metricHelp``).
    public init(help: [String: String], registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) {
        self.registry = registry
        self.help = help.merging(HTTPListenerStatistics.metricHelp) { own, _ in own }
    }

    /// The swift-metrics factory that records into ``registry``.
    public var factory: any MetricsFactory { PrometheusMetricsFactory(registry: registry) }

    /// Makes ``factory`` the process's metrics factory. Once per process, before any metric is
    /// made (swift-metrics traps on a second bootstrap).
    public func bootstrap() {
        MetricsSystem.bootstrap(factory)
    }

    /// The exposition text (format 0.0.4): every family with its `# HELP` and `# TYPE`.
    public func exposition() -> String {
        Self.addingHelp(to: registry.emitToString(), help: help)
    }

    /// `text` with a `# HELP` line before every `# TYPE` line that has none.
    static func addingHelp(to text: String, help: [String: String]) -> String {
        var output = ""
        output.reserveCapacity(text.utf8.count + 64 * help.count)
        var previous: Substring = ""
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            if line.hasPrefix("# TYPE "), !previous.hasPrefix("# HELP ") {
                let name = line.dropFirst("# TYPE ".count).split(separator: " ").first.map(String.init) ?? ""
                output += "# HELP \(name) \(escaped(help[name] ?? "BeaconNet metric \(name)."))\n"
            }
            output += line
            output += "\n"
            previous = line
        }
        return output
    }

    /// Help text as the format wants it: backslashes and line feeds escaped.
    private static func escaped(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
