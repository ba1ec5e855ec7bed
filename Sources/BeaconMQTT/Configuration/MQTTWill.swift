/// A Last Will: the message the broker publishes for a client whose connection ends without a
/// clean DISCONNECT. BeaconNet uses it for retained `offline` status topics.
public struct MQTTWill: Sendable, Hashable {
    /// Topic the will is published on; no wildcards.
    public var topic: String
    /// Payload bytes of the will.
    public var payload: [UInt8]
    /// QoS the broker publishes the will with.
    public var qos: MQTTQoS
    /// Whether the will replaces the topic's retained message (what a status topic wants).
    public var retain: Bool

    /// Makes a will; see each property.
    public init(topic: String, payload: [UInt8], qos: MQTTQoS = .atLeastOnce, retain: Bool = true) {
        self.topic = topic
        self.payload = payload
        self.qos = qos
        self.retain = retain
    }
}
