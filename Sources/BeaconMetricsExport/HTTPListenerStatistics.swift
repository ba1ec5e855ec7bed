public import CoreMetrics
import Synchronization

/// What one HTTP listener's connections do, for its log, its metrics and (the dashboard's)
/// `/api/health`: connections open now, and how often the cap was reached. The listener's
/// ``ConnectionCap`` is the only writer; anyone may read.
public final class HTTPListenerStatistics: Sendable {
    /// The listener's name in logs and in the `listener` label: `metrics`, `dashboard`.
    public let listener: String
    /// The cap it enforces.
    public let maxConnections: Int
    private let openNow = Atomic<Int>(0)
    private let reached = Atomic<UInt64>(0)
    private let openGauge: Gauge
    private let capCounter: Counter

    /// Statistics of `listener`, recorded through `factory` (the process's by default).
    public init(listener: String, maxConnections: Int, factory: any MetricsFactory = MetricsSystem.factory) {
        self.listener = listener
        self.maxConnections = maxConnections
        openGauge = Gauge(label: Self.openName, dimensions: [("listener", listener)], factory: factory)
        capCounter = Counter(label: Self.capName, dimensions: [("listener", listener)], factory: factory)
    }

    /// Connections open now.
    public var openConnections: Int { openNow.load(ordering: .relaxed) }
    /// How many times the listener reached its cap and stopped accepting.
    public var capReached: UInt64 { reached.load(ordering: .relaxed) }

    /// A connection was accepted; returns how many are open now.
    func opened() -> Int {
        let open = openNow.add(1, ordering: .relaxed).newValue
        openGauge.record(open)
        return open
    }

    /// A connection closed.
    func closed() {
        openGauge.record(openNow.subtract(1, ordering: .relaxed).newValue)
    }

    /// The cap was reached (once per time, not per connection waiting).
    func recordCapReached() {
        reached.add(1, ordering: .relaxed)
        capCounter.increment()
    }

    static let openName = "beaconnet_http_connections"
    static let capName = "beaconnet_http_connection_cap_reached_total"

    /// The families' descriptions for `/metrics` (``PrometheusExport`` adds them).
    public static let metricHelp: [String: String] = [
        openName: "HTTP connections open now on a listener of this process.",
        capName: "Times a listener of this process reached its connection cap and stopped accepting until a connection closed.",
    ]
}
