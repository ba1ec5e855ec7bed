/// One application message received on a subscription (or a will to send).
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

/// A change in the state of a client's connection, from ``MQTTClient/connectionEvents()``.
///
/// The edge uses these to switch its outage buffer on and off.
public enum MQTTConnectionEvent: Sendable, Equatable {
    /// The broker accepted a CONNECT (the first one or a reconnect). `sessionPresent`: the
    /// broker still had this client's session, so subscriptions and queued messages survived.
    case connected(sessionPresent: Bool)
    /// An established connection was lost; `error` says why. With reconnect enabled the client
    /// is already retrying and a `.connected` follows when the broker is back.
    case lost(MQTTError)
    /// ``MQTTClient/disconnect()`` was called: the last event, the stream ends after it.
    case closed
}
