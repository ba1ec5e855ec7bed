/// The MQTT protocol version a client speaks.
public enum MQTTProtocolVersion: Sendable, Hashable, CustomStringConvertible {
    /// MQTT 3.1.1: what every broker speaks; no properties (so no message expiry).
    case v311
    /// MQTT 5: reason codes, message expiry, maximum packet size announced by the broker.
    case v5

    /// "3.1.1" or "5", for logs.
    public var description: String {
        switch self {
        case .v311: return "3.1.1"
        case .v5: return "5"
        }
    }
}
