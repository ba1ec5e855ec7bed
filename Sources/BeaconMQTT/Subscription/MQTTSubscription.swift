/// The messages of one ``MQTTClient/subscribe(to:qos:)`` call, in the order the broker sent
/// them, as an `AsyncSequence` for one consumer.
///
/// **Bounded, drop-oldest.** Each subscription buffers up to
/// ``MQTTConfiguration/inboundBufferCapacity`` messages. When its consumer is slower than the
/// broker, the oldest buffered message is dropped and counted in ``droppedMessages`` (and
/// logged at 1, 2, 4, 8, … drops). We chose this over blocking libmosquitto's network thread
/// (true back-pressure) because that thread also answers keep-alives and delivers the
/// acknowledgements of this client's own publishes: a consumer that publishes while it
/// handles a message (the aggregator does) would wait for a PUBACK the blocked thread can
/// never deliver — a deadlock — and a long stall would get the connection dropped for a
/// missed keep-alive. Dropping the oldest keeps the newest sightings, which are what location
/// decisions need, and the sequence numbers in batches make the loss visible downstream.
///
/// The sequence ends after ``MQTTClient/disconnect()`` (or when the client is released). It
/// stays open across reconnects: the client re-subscribes in its connect callback. Ending the
/// iteration (break, task cancellation) or ``MQTTClient/unsubscribe(_:)`` sends UNSUBSCRIBE
/// for filters that no other subscription uses.
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

    /// Iterates the subscription's messages; one iterator per subscription.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncStream<MQTTMessage>.AsyncIterator

        /// The next message, or `nil` once the subscription has ended.
        public mutating func next() async -> MQTTMessage? {
            await base.next()
        }

        /// The next message without leaving the caller's actor.
        public mutating func next(isolation actor: isolated (any Actor)?) async -> MQTTMessage? {
            await base.next(isolation: actor)
        }
    }

    /// Starts the iteration. Only one consumer may iterate a subscription.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: stream.makeAsyncIterator())
    }
}
