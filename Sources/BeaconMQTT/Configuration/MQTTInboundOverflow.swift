/// What a subscription does when its consumer is behind and its buffer
/// (``MQTTConfiguration/inboundBufferCapacity``) is full.
public enum MQTTInboundOverflow: Sendable, Hashable {
    /// Drop the oldest buffered message, count it (``MQTTSubscription/droppedMessages``) and log
    /// it. The network thread never waits, so this is safe on a connection that also publishes.
    /// The default.
    case dropOldest
    /// Stop reading from the socket until the consumer has taken half of the buffer: nothing is
    /// dropped in the client, TCP pushes back, and the broker queues for the session (up to its
    /// `max_queued_messages`, where it counts what it drops). This is how a QoS 1 consumer loses
    /// nothing in a burst and the backlog stays in the broker instead of this process's memory.
    ///
    /// Only for a connection whose consumers do not publish on it while they handle a message:
    /// the paused network thread also delivers this client's acknowledgements, so such a consumer
    /// would wait for itself. A consumer stalled longer than 1.5 × the keep-alive also stalls
    /// the pings, and the broker drops the connection (a persistent session keeps queueing).
    case pauseReading
}
