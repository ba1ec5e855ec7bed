public import ArgumentParser
public import BeaconMQTT

/// `--host`, `--port`, `--client-id`, `--mqtt-version` and the login flags (``BrokerLoginFlags``):
/// where a tool's broker is, which MQTT it speaks and who it is there — one set of flags, with one
/// meaning, in every program that connects (beacon-aggregator run, beacon-edge, beacon-dashboard,
/// beacon-history, beacon-sim run, load, watch).
///
/// Declared once; `Spelling` names them: ``BrokerOptions`` as above, ``OutputBrokerOptions``
/// prefixed for the aggregator's output hub (`--output-host`, …).
///
/// Every value is optional: a program supplies its own defaults (``defaultHost``,
/// ``defaultPort``, its client id), and beacon-edge lays the flags given over its config file.
public struct BrokerFlags<Spelling: BrokerFlagSpelling>: ParsableArguments, Sendable {
    /// `--host`: nil when not given (see ``resolvedHost``).
    @Option(name: Spelling.names("host"), help: Spelling.help("host", plain: "Broker host (default 127.0.0.1; beacon-edge: its config's broker.host)."))
    public var host: String?

    /// `--port`: nil when not given (see ``resolvedPort``).
    @Option(name: Spelling.names("port"), help: Spelling.help("port", plain: "Broker port (default 1883; 8883 is customary with TLS)."))
    public var port: Int?

    /// `--client-id`: nil for the program's own default.
    @Option(name: Spelling.names("client-id"), help: Spelling.help("client-id", plain: "MQTT client id, unique per broker; the shipped brokers bind each login to one. Default: beacon-sim, beacon-dashboard and beacon-history the --username (beacon-history without one: beacon-history), beacon-aggregator beacon-aggregator-<id> (and <client id>-out), beacon-edge the gateway id."))
    public var clientID: String?

    /// `--mqtt-version`: nil when not given (see ``resolvedVersion``).
    @Option(name: Spelling.names("mqtt-version"),
            help: Spelling.help("mqtt-version", plain: "MQTT version spoken to the broker: 5 (default) or 3.1.1, for a broker without MQTT 5 (docs/SCALING.md says what changes)."),
            transform: BrokerFlags.version)
    public var mqttVersion: MQTTProtocolVersion?

    /// The login and TLS.
    @OptionGroup(title: "Broker login")
    public var login: BrokerLoginFlags<Spelling>

    /// The host when `--host` is not given.
    public static var defaultHost: String { "127.0.0.1" }
    /// The port when `--port` is not given.
    public static var defaultPort: Int { 1883 }

    /// Nothing given: the defaults.
    public init() {}

    /// `--host`, or ``defaultHost``.
    public var resolvedHost: String { host ?? Self.defaultHost }
    /// `--port`, or ``defaultPort``.
    public var resolvedPort: Int { port ?? Self.defaultPort }
    /// `--mqtt-version`, or MQTT 5.
    public var resolvedVersion: MQTTProtocolVersion { mqttVersion ?? .v5 }

    /// Whether any broker flag was given (a command that does not connect in some mode
    /// refuses them then).
    public var isGiven: Bool { host != nil || port != nil || clientID != nil || mqttVersion != nil || login.isGiven }

    /// Refuses a port no TCP listener can have.
    public func validate() throws {
        if let port, !(1...65_535).contains(port) { throw ValidationError("\(Spelling.flag("port")) \(port) is not 1…65535") }
    }

    /// The configuration for the broker these flags name, as `--client-id` or else
    /// `defaultClientID`; the login is checked and its files read now (see
    /// ``BrokerLoginFlags/configuration(host:port:clientID:)``).
    public func configuration(defaultClientID: String) throws -> MQTTConfiguration {
        var configuration = try login.configuration(host: resolvedHost, port: resolvedPort, clientID: clientID ?? defaultClientID)
        configuration.protocolVersion = resolvedVersion
        return configuration
    }

    /// `--mqtt-version`'s value: `5` or `3.1.1`.
    static func version(_ text: String) throws -> MQTTProtocolVersion {
        switch text {
        case "5", "5.0": return .v5
        case "3.1.1": return .v311
        default:
            throw ValidationError("\(Spelling.flag("mqtt-version")) \(text) is not 5 or 3.1.1 (MQTT 3.1 and older are not spoken)")
        }
    }
}

/// The broker flags as every program spells them: `--host`, `--port`, ….
public typealias BrokerOptions = BrokerFlags<MainBroker>

/// The aggregator's output hub: `--output-host`, `--output-port`, …, each taking its unprefixed
/// twin's value when not given.
public typealias OutputBrokerOptions = BrokerFlags<OutputBroker>
