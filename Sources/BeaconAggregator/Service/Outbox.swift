import Synchronization

/// The messages decided and not yet settled with the broker, in the order they were decided:
/// every service that decides hands its messages here, and the ``PublishWindowService`` takes
/// them out in that order. It counts what waits (the status topic's lag, benchmarks) and what was
/// given up.
final class Outbox: Sendable {
    /// The messages, in order, until ``finish()``.
    let messages: AsyncStream<Outbound>
    private let continuation: AsyncStream<Outbound>.Continuation
    private let waiting = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)
    private let metrics: AggregatorMetrics

    /// An empty outbox; its settled messages are reported to `metrics`.
    init(metrics: AggregatorMetrics) {
        // Unbounded: decisions never wait for the broker; what waits shows as the backlog.
        (messages, continuation) = AsyncStream.makeStream(of: Outbound.self, bufferingPolicy: .unbounded)
        self.metrics = metrics
    }

    /// Messages enqueued and not yet acknowledged or given up.
    var backlog: Int { waiting.load(ordering: .relaxed) }

    /// Messages given up so far: the broker refused them, or could never take them.
    var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Adds messages at the end, in order.
    func enqueue(_ batch: [Outbound]) {
        guard !batch.isEmpty else { return }
        waiting.add(batch.count, ordering: .relaxed)
        for message in batch { continuation.yield(message) }
    }

    /// Nothing more will be enqueued: the publisher ends once it has taken the rest.
    func finish() { continuation.finish() }

    /// One message acknowledged by the broker.
    func settlePublished() {
        waiting.subtract(1, ordering: .relaxed)
        metrics.recordPublished()
    }

    /// One message given up; returns how many were given up so far.
    func settleDropped() -> Int {
        let total = droppedCount.wrappingAdd(1, ordering: .relaxed).newValue
        waiting.subtract(1, ordering: .relaxed)
        metrics.recordDropped()
        return total
    }
}
