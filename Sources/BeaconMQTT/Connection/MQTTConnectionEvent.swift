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
