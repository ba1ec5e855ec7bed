import BeaconMQTT
public import Logging
public import ServiceLifecycle
import Synchronization

/// Sends the outage buffer's batches to the broker, oldest first, one at a time (QoS 1: the next
/// goes only after the broker acknowledged this one, so order holds across outages).
///
/// While the connection is down a batch goes back to the front of the buffer and the publisher
/// waits for the client's next `.connected` event. A batch already handed to libmosquitto when
/// the connection drops is resent by it after the reconnect (so the broker may see it twice; the
/// aggregator dedupes by `seq`). On graceful shutdown it sends what is left, for at most
/// ``flushTimeout``; then the sending is cancelled, and what the broker did not take is moved to
/// the spill file when there is one.
public final class BatchPublisher: Service, Sendable {
    private let session: BrokerSession
    private let buffer: OutageBuffer
    private let topic: String
    private let counters: EdgeCounters
    /// How long shutdown waits for the broker to take what is left.
    public let flushTimeout: Duration
    private let logger: Logger
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

    /// Publishes until graceful shutdown, then flushes for at most ``flushTimeout``.
    public func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.drain() }
            try? await gracefulShutdown()
            buffer.finishInput()
            group.addTask { try? await Task.sleep(for: self.flushTimeout) }
            // The drain ending (everything sent) or the timer: the other one is cancelled. A
            // drain cancelled puts the batch it was sending back into the buffer.
            await group.next()
            group.cancelAll()
        }
        let left = buffer.count
        leftover.withLock { $0 = left }
        if left == 0 {
            logger.info(
                "flushed: every batch acknowledged",
                metadata: ["edge.published_batches": "\(counters.publishedBatches.load(ordering: .relaxed))"])
        } else {
            let kept = buffer.persistRemaining()
            logger.error(
                "broker did not take every batch before shutdown",
                metadata: ["edge.unflushed_batches": "\(left)", "buffer.kept_in_spill_file": "\(kept)", "edge.flush_timeout": "\(flushTimeout)"])
        }
    }

    /// Sends batches until the buffer's input is finished and empty, the client closes, or the
    /// task is cancelled; a batch it could not send goes back to the front of the buffer.
    private func drain() async {
        let client = session.client
        while let batch = await buffer.take() {
            guard await client.waitUntilConnected() else {
                buffer.requeue(batch)
                return
            }
            let start = ContinuousClock.now
            do {
                try await client.publish(to: topic, payload: batch.payload, qos: .atLeastOnce, retain: false)
                counters.recordPublished(sightings: batch.sightings, duration: .now - start)
            } catch {
                switch error {
                case .notConnected, .connectionLost, .timeout:
                    // Sent again once the client says it is connected (the top of the loop).
                    buffer.requeue(batch)
                case .shutdown, .cancelled:
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
