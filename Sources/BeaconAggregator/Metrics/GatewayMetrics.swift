import CoreMetrics

/// One gateway's stream as the metrics report it (dimension `gateway`), with the duplicates
/// already counted, so the counter moves by what is new.
struct GatewayMetrics {
    /// Batches missing from its sequence, net of late arrivals (they can come down again).
    let lost: Gauge
    /// Batches missing across this process's restart.
    let restartGap: Gauge
    /// Sequence anomalies (they can come down again, when a jump turns out to be loss).
    let seqAnomalies: Gauge
    /// Batches ignored as repeats.
    let duplicates: Counter
    /// What ``duplicates`` was told so far.
    var duplicatesReported: UInt64 = 0
    /// Batches received and decided (repeats excluded).
    let batches: Counter
    /// What ``batches`` was told so far.
    var batchesReported: UInt64 = 0

    /// The handles for `gateway` of `aggregator`.
    init(aggregator: String, gateway: String, factory: any MetricsFactory) {
        let dimensions = [("aggregator", aggregator), ("gateway", gateway)]
        lost = Gauge(label: "beaconnet_aggregator_gateway_lost_batches", dimensions: dimensions, factory: factory)
        restartGap = Gauge(label: "beaconnet_aggregator_gateway_restart_gap_batches", dimensions: dimensions, factory: factory)
        seqAnomalies = Gauge(label: "beaconnet_aggregator_gateway_seq_anomalies", dimensions: dimensions, factory: factory)
        duplicates = Counter(label: "beaconnet_aggregator_gateway_duplicate_batches_total", dimensions: dimensions, factory: factory)
        batches = Counter(label: "beaconnet_aggregator_gateway_batches_total", dimensions: dimensions, factory: factory)
    }
}
