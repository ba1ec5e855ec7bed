public import CoreMetrics
import Foundation

/// What the recorder does, for `--metrics`: the messages it took, the records it wrote, the
/// writes that failed (a full disk, a database away) and what waits meanwhile — what an
/// on-call engineer's alert watches, where the recorder publishes no status of its own.
public struct RecorderMetrics: Sendable {
    private let applied: Counter
    private let skipped: Counter
    private let ignored: Counter
    private let written: Counter
    private let failed: Counter
    private let pending: Gauge
    private let lastWrite: Gauge

    /// The metrics, made through `factory` (the process's bootstrapped one by default).
    public init(factory: any MetricsFactory = MetricsSystem.factory) {
        applied = Counter(label: "beaconnet_history_messages_total", dimensions: [("outcome", "applied")], factory: factory)
        skipped = Counter(label: "beaconnet_history_messages_total", dimensions: [("outcome", "skipped")], factory: factory)
        ignored = Counter(label: "beaconnet_history_messages_total", dimensions: [("outcome", "ignored")], factory: factory)
        written = Counter(label: "beaconnet_history_records_written_total", factory: factory)
        failed = Counter(label: "beaconnet_history_write_failures_total", factory: factory)
        pending = Gauge(label: "beaconnet_history_pending_records", factory: factory)
        lastWrite = Gauge(label: "beaconnet_history_last_write_timestamp_seconds", factory: factory)
    }

    /// What became of a message.
    enum Outcome { case applied, skipped, ignored }

    func received(_ outcome: Outcome) {
        switch outcome {
        case .applied: applied.increment()
        case .skipped: skipped.increment()
        case .ignored: ignored.increment()
        }
    }
    func pending(_ count: Int) { pending.record(count) }
    func wrote(_ records: Int) {
        written.increment(by: records)
        lastWrite.record(Date().timeIntervalSince1970)
    }
    func failedWrite() { failed.increment() }

    /// The families' descriptions for `/metrics`.
    public static let help: [String: String] = [
        "beaconnet_history_messages_total": "Messages from the broker taken by the recorder: applied (events, device states), skipped (a cleared state, nothing to keep) or ignored (malformed).",
        "beaconnet_history_records_written_total": "Visit and name records written to the database.",
        "beaconnet_history_write_failures_total": "Writes that failed (a full disk, a database away): their records are kept for the next attempt.",
        "beaconnet_history_pending_records": "Records waiting to be written or being written (at 50 000 waiting the recorder stops reading; the broker queues).",
        "beaconnet_history_last_write_timestamp_seconds": "When a write of records last succeeded, Unix seconds (it does not move while nothing happens).",
    ]
}
