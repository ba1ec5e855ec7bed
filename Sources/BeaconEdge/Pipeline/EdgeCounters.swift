public import CoreMetrics
public import Synchronization

/// What an edge has counted since it started, shared by its services: read lock-free for the
/// retained status (`counters`), and reported to swift-metrics with the gateway as a dimension.
///
/// Metrics (all with dimension `gateway`):
/// - `beaconnet_edge_reports_total`: advertising reports decoded (an extended advert split over
///   several reports counts once);
/// - `beaconnet_edge_reports_skipped_total` with `reason` `filtered` or `malformed`;
/// - `beaconnet_edge_sightings_total` and `beaconnet_edge_batches_total` with `outcome`
///   `published` (acknowledged by the broker) or `dropped` (outage buffer full, or refused);
/// - `beaconnet_edge_publish_duration`: from handing a batch to the client to its PUBACK.
public final class EdgeCounters: Sendable {
    /// Advertising reports decoded from the source (an extended advert split over several reports
    /// counts once).
    public let reports = Atomic<UInt64>(0)
    /// HCI events or reports that could not be parsed (each skipped, never a crash).
    public let malformed = Atomic<UInt64>(0)
    /// Reports not published: no identity, not on the allow-list, or no RSSI.
    public let filtered = Atomic<UInt64>(0)
    /// Sightings the broker acknowledged.
    public let published = Atomic<UInt64>(0)
    /// Batches the broker acknowledged.
    public let publishedBatches = Atomic<UInt64>(0)
    /// Sightings dropped because the outage buffer was full (oldest first) or the broker refused them.
    public let dropped = Atomic<UInt64>(0)
    /// Batches dropped because the outage buffer was full or the broker refused them.
    public let droppedBatches = Atomic<UInt64>(0)

    private let reportMetric: Counter
    private let filteredMetric: Counter
    private let malformedMetric: Counter
    private let publishedMetric: Counter
    private let publishedBatchesMetric: Counter
    private let droppedMetric: Counter
    private let droppedBatchesMetric: Counter
    private let publishDuration: CoreMetrics.Timer

    /// All zero; metrics go to `metrics` (the process's bootstrapped factory by default).
    public init(gateway: String = "", metrics: any MetricsFactory = MetricsSystem.factory) {
        let gw = ("gateway", gateway)
        reportMetric = Counter(label: "beaconnet_edge_reports_total", dimensions: [gw], factory: metrics)
        filteredMetric = Counter(label: "beaconnet_edge_reports_skipped_total", dimensions: [gw, ("reason", "filtered")], factory: metrics)
        malformedMetric = Counter(label: "beaconnet_edge_reports_skipped_total", dimensions: [gw, ("reason", "malformed")], factory: metrics)
        publishedMetric = Counter(label: "beaconnet_edge_sightings_total", dimensions: [gw, ("outcome", "published")], factory: metrics)
        droppedMetric = Counter(label: "beaconnet_edge_sightings_total", dimensions: [gw, ("outcome", "dropped")], factory: metrics)
        publishedBatchesMetric = Counter(label: "beaconnet_edge_batches_total", dimensions: [gw, ("outcome", "published")], factory: metrics)
        droppedBatchesMetric = Counter(label: "beaconnet_edge_batches_total", dimensions: [gw, ("outcome", "dropped")], factory: metrics)
        publishDuration = CoreMetrics.Timer(label: "beaconnet_edge_publish_duration", dimensions: [gw], factory: metrics)
    }

    /// Adds one chunk's pipeline counts.
    func record(_ counts: PipelineCounts) {
        add(reports, reportMetric, counts.reports)
        add(malformed, malformedMetric, counts.malformed)
        add(filtered, filteredMetric, counts.filtered)
    }

    /// One batch acknowledged by the broker, `duration` after it was handed over.
    func recordPublished(sightings: Int, duration: Duration) {
        add(published, publishedMetric, UInt64(sightings))
        add(publishedBatches, publishedBatchesMetric, 1)
        let (seconds, attoseconds) = duration.components
        publishDuration.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    /// Batches dropped (buffer full, or refused by the broker) with their sightings.
    func recordDropped(batches: Int, sightings: Int) {
        add(droppedBatches, droppedBatchesMetric, UInt64(batches))
        add(dropped, droppedMetric, UInt64(sightings))
    }

    @inline(__always)
    private func add(_ atomic: borrowing Atomic<UInt64>, _ metric: Counter, _ value: UInt64) {
        guard value != 0 else { return }
        atomic.wrappingAdd(value, ordering: .relaxed)
        metric.increment(by: value)
    }
}

/// Counts one pipeline run keeps locally and hands to ``EdgeCounters`` once per chunk, so the hot
/// loop touches no shared memory.
public struct PipelineCounts: Sendable, Equatable {
    /// Advertising reports decoded; an extended advert split over several reports counts once,
    /// when it is whole or given up. Each is then exactly one of ``malformed`` (or an event that
    /// could not be parsed), ``filtered`` or ``sightings``.
    public var reports: UInt64 = 0
    /// Events or reports that could not be parsed.
    public var malformed: UInt64 = 0
    /// Reports not published (no identity, not allowed, no RSSI).
    public var filtered: UInt64 = 0
    /// Reports that became sightings.
    public var sightings: UInt64 = 0

    /// All zero.
    public init() {}

    /// Adds these counts to the shared counters and zeroes them.
    mutating func flush(into counters: EdgeCounters) {
        counters.record(self)
        self = PipelineCounts()
    }
}
