import Synchronization

/// The messages decided and not yet settled with the broker, in the order they were decided:
/// every service that decides hands its messages here, and the ``PublishWindowService`` takes
/// them out in that order. It counts what waits (the status topic's lag, benchmarks) and what was
/// given up. Towards an MQTT 3.1.1 hub it keeps the retained messages' expiry itself
/// (``RetainedExpiry``), in the same order.
final class Outbox: Sendable {
    /// The messages, in order, until ``finish()``.
    let messages: AsyncStream<Outbound>
    private let continuation: AsyncStream<Outbound>.Continuation
    private let waiting = Atomic<Int>(0)
    private let droppedCount = Atomic<Int>(0)
    private let fenced = Atomic<Bool>(false)
    private let metrics: AggregatorMetrics
    /// The expiries kept here (its lock held while a batch is enqueued, so that the bookings
    /// follow the order of publication), used only with ``expiryClock``.
    private let expiries = Mutex(RetainedExpiry())
    /// The wall clock the expiries are kept by; nil when the broker keeps them (MQTT 5).
    private let expiryClock: (@Sendable () -> Int64)?

    /// An empty outbox; its settled messages are reported to `metrics`. With `expiryClock`
    /// (Unix ms), it keeps the retained messages' expiry itself, for an MQTT 3.1.1 broker.
    init(metrics: AggregatorMetrics, expiryClock: (@Sendable () -> Int64)? = nil) {
        // Unbounded: decisions never wait for the broker; what waits shows as the backlog.
        (messages, continuation) = AsyncStream.makeStream(of: Outbound.self, bufferingPolicy: .unbounded)
        self.metrics = metrics
        self.expiryClock = expiryClock
    }

    /// Whether the outbox keeps the retained messages' expiry itself (an MQTT 3.1.1 hub).
    var keepsExpiry: Bool { expiryClock != nil }

    /// Retained messages whose clear is booked (none when the broker keeps the expiry).
    var expiriesPending: Int { expiries.withLock { $0.pending } }

    /// Messages enqueued and not yet acknowledged or given up.
    var backlog: Int { waiting.load(ordering: .relaxed) }

    /// Messages given up so far: the broker refused them, or could never take them.
    var dropped: Int { droppedCount.load(ordering: .relaxed) }

    /// Adds messages at the end, in order.
    func enqueue(_ batch: [Outbound]) {
        guard !batch.isEmpty, !isFenced else { return }
        waiting.add(batch.count, ordering: .relaxed)
        guard let expiryClock else {
            for message in batch { continuation.yield(message) }
            return
        }
        let now = expiryClock()
        expiries.withLock { book in
            for message in batch { continuation.yield(book.publishing(message, now: now)) }
        }
    }

    /// Enqueues the clears due now (``RetainedExpiry/due(now:)``); returns how many.
    @discardableResult
    func expireDue() -> Int {
        guard let expiryClock else { return 0 }
        let now = expiryClock()
        return expiries.withLock { book in
            let clears = book.due(now: now)
            waiting.add(clears.count, ordering: .relaxed)
            for clear in clears { continuation.yield(clear) }
            return clears.count
        }
    }

    /// Books the clear of a retained message read back at start (`topic`, due at `deadline`,
    /// Unix ms), when the outbox keeps the expiry.
    func bookExpiry(of topic: String, at deadline: Int64) {
        guard keepsExpiry else { return }
        expiries.withLock { $0.book(topic, at: deadline) }
    }

    /// Forgets the booked clear of `topic`: another publisher replaced its message.
    func cancelExpiry(of topic: String) {
        expiries.withLock { $0.cancel(topic) }
    }

    /// Nothing more will be enqueued: the publisher ends once it has taken the rest.
    func finish() { continuation.finish() }

    /// Whether the outbox publishes no more: its instance was superseded by a standby, and what
    /// it decided since is from states that have moved on.
    var isFenced: Bool { fenced.load(ordering: .relaxed) }

    /// Publishes nothing more: what waits is discarded as the publisher reaches it, what comes
    /// later is not taken.
    func fence() { fenced.store(true, ordering: .relaxed) }

    /// A message waiting when the outbox was fenced, discarded.
    func settleDiscarded() {
        waiting.subtract(1, ordering: .relaxed)
    }

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
