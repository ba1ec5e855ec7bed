public import ArgumentParser
public import BeaconMQTT

/// `--host`, `--port`, `--client-id` and the login flags (``BrokerLoginOptions``): where a tool's
/// broker is and who it is there — one set of flags, with one meaning, in every program that
/// connects (beacon-aggregator run, beacon-edge, beacon-dashboard, beacon-sim run, load, watch).
///
/// Every value is optional: a program supplies its own defaults (``defaultHost``,
/// ``defaultPort``, its client id), and beacon-edge lays the flags given over its config file.
public struct BrokerOptions: ParsableArguments, Sendable {
    /// `--host`: nil when not given (see ``resolvedHost``).
    @Option(help: "Broker host (default 127.0.0.1; beacon-edge: its config's broker.host).")
    public var host: String?

    /// `--port`: nil when not given (see ``resolvedPort``).
    @Option(help: "Broker port (default 1883; 8883 is customary with TLS).")
    public var port: Int?

    /// `--client-id`: nil for the program's own default.
    @Option(help: "MQTT client id, unique per broker; the shipped brokers bind each login to one. Default: beacon-sim, beacon-dashboard and beacon-history the --username (beacon-history without one: beacon-history), beacon-aggregator beacon-aggregator-<id> (and <client id>-out), beacon-edge the gateway id.")
    public var clientID: String?

    /// The login and TLS.
    @OptionGroup(title: "Broker login")
    public var login: BrokerLoginOptions

    /// The host when `--host` is not given.
    public static let defaultHost = "127.0.0.1"
    /// The port when `--port` is not given.
    public static let defaultPort = 1883

    /// Nothing given: the defaults.
    public init() {}

    /// `--host`, or ``defaultHost``.
    public var resolvedHost: String { host ?? Self.defaultHost }
    /// `--port`, or ``defaultPort``.
    public var resolvedPort: Int { port ?? Self.defaultPort }

    /// Whether any broker flag was given (a command that does not connect in some mode
    /// refuses them then).
    public var isGiven: Bool { host != nil || port != nil || clientID != nil || login.isGiven }

    /// Refuses a port no TCP listener can have.
    public func validate() throws {
        if let port, !(1...65_535).contains(port) { throw ValidationError("--port \(port) is not 1…65535") }
    }

    /// The configuration for the broker these flags name, as `--client-id` or else
    /// `defaultClientID`; the login is checked and its files read now (see
    /// ``BrokerLoginOptions/configuration(host:port:clientID:)``).
    public func configuration(defaultClientID: String) throws -> MQTTConfiguration {
        try login.configuration(host: resolvedHost, port: resolvedPort, clientID: clientID ?? defaultClientID)
    }
}
