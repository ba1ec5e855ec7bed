import BeaconMQTT
public import Logging
public import ServiceLifecycle
import Synchronization

/// Sends the outage buffer's batches to the broker, oldest first, one at a time (QoS 1: the next
/// goes only after the broker acknowledged this one, so order holds across outages).
///
/// While the connection is down a batch goes back to the front of the buffer and the publisher
/// waits for the session to reconnect. A batch already handed to libmosquitto when the connection
/// drops is resent by it after the reconnect (so the broker may see it twice; the aggregator
/// dedupes by `seq`). On graceful shutdown it sends what is left, for at most ``flushTimeout``;
/// what the broker did not take by then is moved to the spill file when there is one.
public final class BatchPublisher: Service, Sendable {
    private let session: BrokerSession
    private let buffer: OutageBuffer
    private let topic: String
    private let counters: EdgeCounters
    /// How long shutdown waits for the broker to take what is left.
    public let flushTimeout: Duration
    private let logger: Logger
    private let inHand = Mutex<SealedBatch?>(nil)
    private let leftover = Mutex<Int?>(nil)

    /// Makes a publisher for `topic` (the gateway's sightings topic).
    public init(
        session: BrokerSession, buffer: OutageBuffer, topic: String, counters: EdgeCounters, flushTimeout: Duration,
        logger: Logger
    ) {
        self.session = session
        self.buffer = buffer
        self.topic = topic
        self.counters = counters
        self.flushTimeout = flushTimeout
        self.logger = logger
    }

    /// After ``run()`` returned: batches the broker did not acknowledge (0 when everything was
    /// flushed); nil while running.
    public var unflushedBatches: Int? { leftover.withLock { $0 } }

    /// Publishes until graceful shutdown, then flushes.
    public func run() async throws {
        let drain = Task { await self.drain() }
        try? await gracefulShutdown()
        buffer.finishInput()
        let flushed = await Race.first(within: flushTimeout) { await drain.value }
        let hand = inHand.withLock { $0 }
        let left = buffer.count + (hand == nil ? 0 : 1)
        leftover.withLock { $0 = flushed ? 0 : left }
        if flushed {
            logger.info(
                "flushed: every batch acknowledged",
                metadata: ["edge.published_batches": "\(counters.publishedBatches.load(ordering: .relaxed))"])
        } else {
            let kept = buffer.persistRemaining(extra: hand)
            logger.error(
                "broker did not take every batch before shutdown",
                metadata: ["edge.unflushed_batches": "\(left)", "buffer.kept_in_spill_file": "\(kept)", "edge.flush_timeout": "\(flushTimeout)"])
        }
    }

    private func drain() async {
        let client = session.client
        while let batch = await buffer.take() {
            guard await session.gate.waitUntilConnected() else {
                buffer.requeue(batch)
                return
            }
            inHand.withLock { $0 = batch }
            let start = ContinuousClock.now
            do {
                try await client.publish(to: topic, payload: batch.payload, qos: .atLeastOnce, retain: false)
                inHand.withLock { $0 = nil }
                counters.recordPublished(sightings: batch.sightings, duration: .now - start)
            } catch {
                inHand.withLock { $0 = nil }
                switch error {
                case .notConnected, .connectionLost, .timeout:
                    buffer.requeue(batch)
                    try? await Task.sleep(for: .milliseconds(100))
                case .shutdown:
                    buffer.requeue(batch)
                    return
                default:
                    // The broker or the client refuses this batch for good (too large, ACL):
                    // retrying would block every batch behind it.
                    counters.recordDropped(batches: 1, sightings: batch.sightings)
                    logger.error(
                        "batch refused; dropped",
                        metadata: ["batch.seq": "\(batch.sequence)", "mqtt.topic": "\(topic)", "mqtt.error": "\(error)"])
                }
            }
        }
    }
}
