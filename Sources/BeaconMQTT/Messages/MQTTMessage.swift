/// One application message received on a subscription.
///
/// The topic and payload are Swift copies made inside libmosquitto's callback, so a message
/// outlives the C buffer it came from.
public struct MQTTMessage: Sendable, Hashable {
    /// The topic it was published on (never a filter: no wildcards).
    public var topic: String
    /// The payload bytes, as published.
    public var payload: [UInt8]
    /// The QoS it was delivered with: the lower of the publish and subscription QoS.
    public var qos: MQTTQoS
    /// `true` when the broker sent it from its retained store because of a new subscription
    /// (state that was already there), `false` for a live publish.
    public var retain: Bool

    /// Makes a message; used by tests and by code that fakes a feed.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atMostOnce, retain: Bool = false) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}
