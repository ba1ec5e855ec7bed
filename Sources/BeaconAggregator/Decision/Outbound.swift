import BeaconEngine
/// A message the aggregator publishes: where, what, and how.
public struct Outbound: Sendable, Equatable {
    /// How it is delivered.
    public enum Delivery: Sendable, Equatable {
        /// QoS 1, not retained (enter/exit events, rejects).
        case event
        /// QoS 1, retained; an expiry (seconds, MQTT v5) makes the broker drop it later.
        case retained(expirySeconds: UInt32?)
    }

    /// Full topic.
    public var topic: String
    /// JSON payload.
    public var payload: [UInt8]
    /// Delivery.
    public var delivery: Delivery

    public init(topic: String, payload: [UInt8], delivery: Delivery) {
        self.topic = topic
        self.payload = payload
        self.delivery = delivery
    }

    /// `topic payload`, as `mosquitto_sub -v` prints a message.
    public var traceLine: String { topic + " " + String(decoding: payload, as: UTF8.self) }
}
