/// Why an MQTT operation failed, with what a person needs to act on it.
///
/// Texts come from libmosquitto (`mosquitto_strerror`, `mosquitto_connack_string`,
/// `mosquitto_reason_string`) or the C library (`strerror`), so they match what
/// `mosquitto_pub` would print.
public enum MQTTError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broker answered CONNECT with a refusal that is not about credentials (unsupported
    /// protocol version, identifier rejected, server unavailable, …). `reasonCode` is the CONNACK
    /// return code (MQTT 3.1.1: 1–5) or MQTT v5 reason code (0x80 and above).
    case connectionRefused(reasonCode: Int, reason: String)
    /// The broker refused the user name and password (CONNACK 4/5, v5 0x86/0x87), or a
    /// subscription or publish to a topic the ACL does not allow (v5 reason 0x87).
    case notAuthorized(reason: String)
    /// TLS could not be set up: a CA/certificate/key file that cannot be read, a handshake that
    /// failed, a broker certificate that does not verify against the CA or does not name the host.
    /// `detail` carries OpenSSL's own message (e.g. "certificate verify failed").
    case tlsFailure(detail: String)
    /// No TCP connection to `host:port`: refused (nothing listening), no route, name not found.
    /// `errno` was read right after the failing connect call (0 for a name-lookup failure) and
    /// `reason` is its `strerror` text, or the lookup error.
    case hostUnreachable(host: String, port: Int, errno: Int32, reason: String)
    /// `operation` did not complete within `after` (a broker that accepts TCP but never answers,
    /// a black-holed route).
    case timeout(operation: String, after: Duration)
    /// A payload of `size` bytes is more than `limit`: the MQTT maximum (268 435 455) or the
    /// maximum packet size the broker announced in its v5 CONNACK (which also counts the topic
    /// and headers).
    case payloadTooLarge(size: Int, limit: Int)
    /// `topic` is not usable: empty, a wildcard in a publish topic, a misplaced wildcard in a
    /// filter, not UTF-8, longer than 65 535 bytes. `reason` says which.
    case invalidTopic(topic: String, reason: String)
    /// The client has no connection right now: never connected, or between a lost connection
    /// and the next successful reconnect. Retry later or buffer.
    case notConnected
    /// The connection dropped while the operation was waiting (QoS 0 publish not yet written,
    /// subscription not yet acknowledged). `code` and `reason` are libmosquitto's (or the
    /// broker's v5 DISCONNECT reason).
    case connectionLost(code: Int, reason: String)
    /// ``MQTTClient/connect()`` was called while a connect or an automatic reconnect is already
    /// under way; wait for ``MQTTConnectionEvent/connected(sessionPresent:)`` instead.
    case connectInProgress
    /// ``MQTTClient/disconnect()`` was called (or the client was released): the operation was
    /// cancelled, or refused because the client is closed for good.
    case shutdown
    /// The port at `host`:`port` speaks TLS and this client plain MQTT: the connection was
    /// dropped before the broker answered, and a TLS handshake offered to the same port was
    /// answered. The fix is the CA of the broker's certificate (``MQTTConfiguration/tls``);
    /// retrying as it is cannot work.
    case tlsRequired(host: String, port: Int)
    /// The task waiting for the broker (an acknowledgement) was cancelled. A QoS 1 or 2 message
    /// already handed to libmosquitto stays queued there and may still be delivered.
    case cancelled
    /// libmosquitto or the broker reported something else: `code` is the `MOSQ_ERR_*` value or
    /// the v5 reason code, `reason` its text.
    case protocolError(code: Int, reason: String)

    /// One line for a log or an operator: what failed and the context to act on it.
    public var description: String {
        switch self {
        case .connectionRefused(let code, let reason):
            return "broker refused the connection: \(reason) (code \(code))"
        case .notAuthorized(let reason):
            return "not authorized: \(reason)"
        case .tlsFailure(let detail):
            return "TLS failure: \(detail)"
        case .hostUnreachable(let host, let port, let code, let reason):
            return "cannot reach \(host):\(port): \(reason) (errno \(code))"
        case .timeout(let operation, let after):
            return "\(operation) timed out after \(after)"
        case .payloadTooLarge(let size, let limit):
            return "payload of \(size) bytes is larger than the limit of \(limit) bytes"
        case .invalidTopic(let topic, let reason):
            return "invalid topic \"\(topic.prefix(120))\": \(reason)"
        case .notConnected:
            return "not connected to the broker"
        case .connectionLost(let code, let reason):
            return "connection lost: \(reason) (code \(code))"
        case .connectInProgress:
            return "a connect is already in progress"
        case .shutdown:
            return "the client was disconnected"
        case .tlsRequired(let host, let port):
            return "the broker at \(host):\(port) answered with TLS, and this connection is plain MQTT: it needs the CA of the broker's certificate"
        case .cancelled:
            return "cancelled while waiting for the broker"
        case .protocolError(let code, let reason):
            return "MQTT error: \(reason) (code \(code))"
        }
    }
}
