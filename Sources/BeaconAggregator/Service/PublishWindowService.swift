import BeaconMQTT
import Logging
import ServiceLifecycle

/// Publishes the ``Outbox`` on the events connection, in order, with up to ``window`` messages in
/// flight, so a slow broker never holds up the decisions. First in the service group, so the last
/// to stop: every other service has said its last word when it drains what is left — for at most
/// its drain timeout, so a dead broker cannot hold a SIGTERM hostage — and disconnects.
final class PublishWindowService: Service {
    /// Messages published and not yet acknowledged, at most. One QoS 1 round trip per message
    /// would bound the rate to a few thousand a second and cost thread switches for each; with a
    /// window the network thread writes and reads them in bulk. libmosquitto keeps order, and
    /// holds back what exceeds the broker's receive maximum.
    static let window = 256

    private let client: MQTTClient
    private let outbox: Outbox
    private let drainTimeout: Duration
    private let logger: Logger

    /// Publishes `outbox` on `client` (connected by the service before the group starts).
    init(client: MQTTClient, outbox: Outbox, drainTimeout: Duration, logger: Logger) {
        self.client = client
        self.outbox = outbox
        self.drainTimeout = drainTimeout
        self.logger = logger
    }

    /// Publishes until the graceful shutdown reaches it, then drains the outbox (bounded) and
    /// disconnects.
    func run() async {
        let drained = await withTaskGroup(of: Bool.self) { group in
            group.addTask { await self.publish(); return true }
            try? await gracefulShutdown()
            // The services after this one have stopped: nothing more is decided.
            outbox.finish()
            group.addTask { try? await Task.sleep(for: self.drainTimeout); return false }
            let drained = await group.next() ?? false
            if !drained {
                // The group cannot end while the publisher waits for acknowledgements: stop it
                // (disconnecting fails a publish still waiting for its acknowledgement).
                logger.error("broker unreachable at shutdown: \(outbox.backlog) message(s) not published (device states are in the snapshot)")
                group.cancelAll()
                await client.disconnect()
            }
            group.cancelAll()
            return drained
        }
        logger.debug("shutting down: drain \(drained ? "complete" : "timed out")")
        await client.disconnect()
    }

    /// Publishes in order, up to ``window`` in flight: one loop hands messages to libmosquitto,
    /// another collects the broker's acknowledgements in the same order. A message that cannot go
    /// out now (broker down) is retried until it does, so events are delayed by an outage, not
    /// lost. One the broker refuses (an ACL, v5) or can never take is logged and dropped:
    /// retrying it would hold up everything behind it.
    func publish() async {
        let (receipts, sink) = AsyncStream<MQTTPublishReceipt>.makeStream(bufferingPolicy: .unbounded)
        let window = PublishWindow(size: Self.window)
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await self.collect(receipts, window: window) }
            for await message in outbox.messages {
                guard await window.acquire() else { break }
                // Checked once the window has room, not before: a fence set while this waited
                // discards the message too.
                if outbox.isFenced {
                    outbox.settleDiscarded()
                    window.release()
                    continue
                }
                guard await hand(message, to: sink, window: window) else { break }
            }
            sink.finish()
            await group.waitForAll()
        }
    }

    /// Settles the acknowledgements in order, giving each message's slot back.
    private func collect(_ receipts: AsyncStream<MQTTPublishReceipt>, window: PublishWindow) async {
        // However this ends (all settled, shutdown, cancellation), the sender must not wait.
        defer { window.close() }
        for await receipt in receipts {
            do throws(MQTTError) {
                try await receipt.acknowledged()
                outbox.settlePublished()
            } catch {
                // Disconnected, or this task cancelled at a drain that timed out.
                if error == .shutdown || error == .cancelled { return }
                drop("the broker refused it: \(error)", topic: receipt.topic)
            }
            window.release()
        }
    }

    /// Hands one message to libmosquitto, holding a slot of the window; false when publishing
    /// must stop (shutdown, cancellation).
    private func hand(_ message: Outbound, to sink: AsyncStream<MQTTPublishReceipt>.Continuation, window: PublishWindow) async -> Bool {
        var delay = Duration.milliseconds(100)
        while true {
            do throws(MQTTError) {
                sink.yield(try enqueue(message))
                return true
            } catch {
                if case .shutdown = error { return false }
                if Task.isCancelled { return false }
                switch error {
                case .payloadTooLarge, .invalidTopic, .protocolError:
                    drop("the broker cannot take it: \(error)", topic: message.topic)
                    window.release()
                    return true
                default:
                    // Not connected: what is in flight is resent by libmosquitto after the
                    // reconnect; this one waits its turn, and goes only once all of those are
                    // acknowledged — libmosquitto marks the client connected a moment before it
                    // queues its resends, and a new message slipping in there would overtake
                    // them (an older retained state over a newer one).
                    try? await Task.sleep(for: delay)
                    delay = min(delay * 2, .seconds(5))
                    guard await window.othersSettled() else { return false }
                    if outbox.isFenced {
                        outbox.settleDiscarded()
                        window.release()
                        return true
                    }
                }
            }
        }
    }

    private func enqueue(_ message: Outbound) throws(MQTTError) -> MQTTPublishReceipt {
        switch message.delivery {
        case .event:
            try client.enqueuePublish(to: message.topic, payload: message.payload, qos: .atLeastOnce, retain: false)
        case .retained(let expiry):
            try client.enqueuePublish(to: message.topic, payload: message.payload, qos: .atLeastOnce, retain: true,
                                      messageExpiry: expiry.map { .seconds(Int64($0)) })
        }
    }

    /// Gives a message up, logging it at the 1st, 2nd, 4th, 8th, … drop, so an ACL mistake on a
    /// whole topic tree shows without flooding the log at the event rate.
    private func drop(_ why: String, topic: String) {
        let total = outbox.settleDropped()
        guard total & (total - 1) == 0 else { return }
        logger.error("dropping a message: \(why)", metadata: ["mqtt.topic": "\(topic)", "publish.dropped_total": "\(total)"])
    }
}
