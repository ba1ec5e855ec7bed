/// MQTT quality of service: how hard the client and broker try to deliver one message.
public enum MQTTQoS: Int, Sendable, Hashable, Comparable, CaseIterable, CustomStringConvertible {
    /// QoS 0: sent once, never acknowledged; lost if the connection drops.
    case atMostOnce = 0
    /// QoS 1: acknowledged by PUBACK and resent until then; may arrive twice.
    case atLeastOnce = 1
    /// QoS 2: four-step handshake ending in PUBCOMP; arrives exactly once.
    case exactlyOnce = 2

    /// Orders by strength of the guarantee: at most once < at least once < exactly once.
    public static func < (lhs: MQTTQoS, rhs: MQTTQoS) -> Bool { lhs.rawValue < rhs.rawValue }

    /// "QoS 0", "QoS 1" or "QoS 2", for logs.
    public var description: String { "QoS \(rawValue)" }
}
