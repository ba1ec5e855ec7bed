import CMosquitto
import Logging
import Synchronization

/// The client's side of one ``MQTTSubscription``: its filters, the stream it feeds, and the
/// count of messages dropped because its consumer fell behind.
final class SubscriptionEntry: Sendable {
    let id: UInt64
    let filters: [String]
    let qos: MQTTQoS
    let continuation: AsyncStream<MQTTMessage>.Continuation
    let dropped = Atomic<Int>(0)
    /// Set for a ``MQTTInboundOverflow/pauseReading`` subscription (its stream is unbounded).
    let gate: InboundGate?
    /// Called with each message before it is buffered (``MQTTClient/declareSubscription(to:qos:onArrival:)``).
    let onArrival: (@Sendable (MQTTMessage) -> Void)?
    let logger: Logger

    init(
        id: UInt64, filters: [String], qos: MQTTQoS, continuation: AsyncStream<MQTTMessage>.Continuation, gate: InboundGate?,
        onArrival: (@Sendable (MQTTMessage) -> Void)? = nil, logger: Logger
    ) {
        self.id = id
        self.filters = filters
        self.qos = qos
        self.continuation = continuation
        self.gate = gate
        self.onArrival = onArrival
        self.logger = logger
    }

    /// A stream and its entry as the configuration asks: bounded and drop-oldest, or unbounded
    /// behind a gate that pauses the network thread. `onTermination` runs when the stream ends,
    /// after the gate is opened for good (a thread waiting for a reader that is gone goes on).
    static func make(
        id: UInt64, filters: [String], qos: MQTTQoS, configuration: MQTTConfiguration, logger: Logger,
        onArrival: (@Sendable (MQTTMessage) -> Void)? = nil,
        onTermination: @escaping @Sendable (AsyncStream<MQTTMessage>.Continuation.Termination) -> Void
    ) -> (AsyncStream<MQTTMessage>, SubscriptionEntry) {
        let capacity = max(1, configuration.inboundBufferCapacity)
        let gate: InboundGate?
        let policy: AsyncStream<MQTTMessage>.Continuation.BufferingPolicy
        switch configuration.inboundOverflow {
        case .dropOldest:
            gate = nil
            policy = .bufferingNewest(capacity)
        case .pauseReading:
            gate = InboundGate(capacity: capacity)
            policy = .unbounded
        }
        let (stream, continuation) = AsyncStream.makeStream(of: MQTTMessage.self, bufferingPolicy: policy)
        continuation.onTermination = { termination in
            gate?.open()
            onTermination(termination)
        }
        return (stream, SubscriptionEntry(id: id, filters: filters, qos: qos, continuation: continuation, gate: gate, onArrival: onArrival, logger: logger))
    }

    /// The first of the filters that matches `topic` (a C string from libmosquitto), if any.
    func firstMatchingFilter(_ topic: UnsafePointer<CChar>) -> String? {
        for filter in filters {
            var result = false
            let rc = filter.withCString { mosquitto_topic_matches_sub($0, topic, &result) }
            if rc == MOSQ_ERR_SUCCESS, result { return filter }
        }
        return nil
    }

    /// Hands a message to the consumer. With a gate, waits for room first. Otherwise a full
    /// buffer drops its oldest message (the `bufferingNewest` policy): counted, and logged at
    /// 1, 2, 4, 8, … drops so a stalled consumer shows in the log without flooding it.
    func deliver(_ message: MQTTMessage) {
        onArrival?(message)
        if let gate {
            gate.admit()
            if case .terminated = continuation.yield(message) {
                // Nobody will take it: never wait again, and do not count it as waiting.
                gate.open()
                gate.taken()
            }
            return
        }
        if case .dropped = continuation.yield(message) {
            let total = dropped.wrappingAdd(1, ordering: .relaxed).newValue
            if total & (total - 1) == 0 {
                logger.warning(
                    "subscriber is behind: dropped oldest messages",
                    metadata: ["mqtt.filters": "\(filters)", "mqtt.dropped": "\(total)", "mqtt.topic": "\(message.topic)"])
            }
        }
    }

    /// Ends the consumer's `for await` loop. Never called with the core's lock held:
    /// `finish()` runs the stream's termination handler, which takes that lock.
    func finish() {
        gate?.open()
        continuation.finish()
    }
}
