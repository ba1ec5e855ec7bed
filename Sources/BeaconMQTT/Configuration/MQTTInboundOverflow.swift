/// What a subscription does when its consumer is behind and its buffer
/// (``MQTTConfiguration/inboundBufferCapacity``) is full.
public enum MQTTInboundOverflow: Sendable, Hashable {
    /// Drop the oldest buffered message, count it (``MQTTSubscription/droppedMessages``) and log
    /// it. The network thread never waits, so this is safe on a connection that also publishes.
    /// The default.
    case dropOldest
    /// Stop reading from the socket until the consumer has taken half of the buffer: a slow
    /// consumer costs no message in the client, TCP pushes back, and the broker queues for the
    /// session (up to its `max_queued_messages`, where it counts what it drops). This is how a
    /// QoS 1 consumer loses nothing in a burst and the backlog stays in the broker instead of
    /// this process's memory.
    ///
    /// **For a connection that only receives**, with its subscriptions made by
    /// ``MQTTClient/declareSubscription(to:qos:)`` before connecting. While the network thread
    /// waits, nothing else moves on the connection: a publish, a ``MQTTClient/subscribe(to:qos:)``
    /// or an unsubscribe waits with it (a consumer that publishes on the same connection while it
    /// handles a message would wait for itself), and so do the keep-alive pings — a consumer
    /// stalled for longer than 1.5 × the keep-alive gets the connection dropped (a persistent
    /// session keeps queueing; the client reconnects once the consumer catches up).
    ///
    /// Ending the iteration (`break`, a cancelled task, the iterator going away) ends the
    /// subscription, so a thread waiting for a reader that is gone cannot stall the others.
    ///
    /// A ``MQTTClient/disconnect()`` while the thread waits may close the socket without a clean
    /// DISCONNECT: the broker may then publish the Last Will, and QoS 1 messages it had in flight
    /// come again to a persistent session (deduplicate them, as the aggregator does by batch
    /// sequence number).
    case pauseReading
}
