/// A recording laid out for replay: every batch the edges would publish, in order, and the truth
/// to score the aggregator's answer against (written as a trace and a truth file).
public struct Recording: Sendable {
    /// One batch per gateway per window, windows in time order, gateways in chain order.
    public var batches: [SimulatedBatch]
    /// The truth, in time order.
    public var truth: [TruthChange]
    /// The end of the scored period, Unix ms: the last run's last row.
    public var end: Int64

    /// A recording.
    public init(batches: [SimulatedBatch], truth: [TruthChange], end: Int64) {
        self.batches = batches
        self.truth = truth
        self.end = end
    }

    /// Sightings in all batches.
    public var sightings: Int { batches.reduce(0) { $0 + $1.sightings.count } }
}
