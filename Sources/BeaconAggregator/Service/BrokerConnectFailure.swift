public import BeaconMQTT

/// A connection of the aggregator that retrying cannot fix (refused login or certificates, a TLS
/// port), with the broker it was meant for, so the message names the right flags: the input
/// broker's `--host`, `--username`, … or the output hub's `--output-host`, ….
public struct BrokerConnectFailure: Error, Sendable, CustomStringConvertible {
    /// Which of the two connections failed.
    public enum Connection: Sendable, Hashable {
        /// The sightings connection, to the input broker (the shard).
        case sightings
        /// The events connection, to the output hub.
        case events
    }

    /// The connection that failed.
    public let connection: Connection
    /// Its configuration (host, port, login, client id).
    public let configuration: MQTTConfiguration
    /// What the client met.
    public let error: MQTTError

    /// A failure of `connection`, configured as `configuration`, with `error`.
    public init(connection: Connection, configuration: MQTTConfiguration, error: MQTTError) {
        self.connection = connection
        self.configuration = configuration
        self.error = error
    }

    /// The client's error, for logs.
    public var description: String { "\(error)" }
}
