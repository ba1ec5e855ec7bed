/// The messages of one ``MQTTClient/subscribe(to:qos:)`` call, in the order the broker sent
/// them, as an `AsyncSequence` for one consumer.
///
/// **Bounded, drop-oldest by default.** Each subscription buffers up to
/// ``MQTTConfiguration/inboundBufferCapacity`` messages. When its consumer is slower than the
/// broker, the oldest buffered message is dropped and counted in ``droppedMessages`` (and
/// logged at 1, 2, 4, 8, … drops). We chose this default over blocking libmosquitto's network
/// thread (true back-pressure, ``MQTTInboundOverflow/pauseReading``, which a connection that
/// only receives can opt into) because that thread also answers keep-alives and delivers the
/// acknowledgements of this client's own publishes: a consumer that publishes while it
/// handles a message (the aggregator does) would wait for a PUBACK the blocked thread can
/// never deliver — a deadlock — and a long stall would get the connection dropped for a
/// missed keep-alive. Dropping the oldest keeps the newest sightings, which are what location
/// decisions need, and the sequence numbers in batches make the loss visible downstream.
///
/// The sequence ends after ``MQTTClient/disconnect()`` (or when the client is released). It
/// stays open across reconnects: the client re-subscribes in its connect callback. A task
/// cancelled while it waits for the next message, the last copy of the subscription going
/// away, or ``MQTTClient/unsubscribe(_:)`` ends it and sends UNSUBSCRIBE for filters that no
/// other subscription uses; so does any end of the iteration (`break` too) of a
/// ``MQTTInboundOverflow/pauseReading`` subscription. A drop-oldest subscription whose loop
/// breaks stays open and buffers for a later loop.
public struct MQTTSubscription: AsyncSequence, Sendable {
    /// Each element is one received message.
    public typealias Element = MQTTMessage
    /// The sequence never throws: it ends when the client is disconnected.
    public typealias Failure = Never

    let stream: AsyncStream<MQTTMessage>
    let entry: SubscriptionEntry

    /// The topic filters this subscription was made with.
    public var filters: [String] { entry.filters }

    /// The QoS this subscription asked for.
    public var qos: MQTTQoS { entry.qos }

    /// How many messages were dropped because the buffer was full (see the type's doc).
    public var droppedMessages: Int { entry.dropped.load(ordering: .relaxed) }

    /// Messages received and not yet taken by the consumer, for a
    /// ``MQTTInboundOverflow/pauseReading`` subscription; `nil` for a drop-oldest one.
    public var waitingMessages: Int? { entry.gate?.buffered }

    /// Iterates the subscription's messages; one iterator per subscription.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<MQTTMessage>.AsyncIterator
        let gate: InboundGate?
        /// pauseReading: ends the subscription when the iteration ends.
        let end: IterationEnd?

        /// The next message, or `nil` once the subscription has ended.
        public mutating func next() async -> MQTTMessage? {
            let message = await base.next()
            if message != nil { gate?.taken() }
            return message
        }

        /// The next message without leaving the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> MQTTMessage? {
            let message = await base.next(isolation: actor)
            if message != nil { gate?.taken() }
            return message
        }
    }

    /// Starts the iteration. Only one consumer may iterate a subscription.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator(), gate: entry.gate, end: entry.gate == nil ? nil : IterationEnd(entry))
    }

    /// Ends a pauseReading subscription when its iterator (every copy of it) goes away: no one
    /// will take from the buffer again, so the network thread must never wait for it.
    final class IterationEnd: Sendable {
        let entry: SubscriptionEntry
        init(_ entry: SubscriptionEntry) { self.entry = entry }
        deinit { entry.finish() }
    }
}
