import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconDashboard
import BeaconMetricsExport
import BeaconMQTT
import BeaconWire
import Foundation
import Logging
import ServiceLifecycle

/// beacon-dashboard: a live web page of the chain — each store's floor plan with its occupancy,
/// the event feed, gateway and aggregator health, device look-up — read from the broker as a
/// read-only dashboard login.
@main
struct BeaconDashboardCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-dashboard",
        abstract: "Serve a live dashboard of the chain: floor plans with occupancy, events, health, device look-up.",
        discussion: """
            Subscribes to the aggregators' retained layouts, occupancy, device states and statuses \
            and their events, as a dashboard login of the shipped ACL (make-acl.sh --dashboard), and \
            serves the page, a JSON API and server-sent events on --listen. See docs/DASHBOARD.md.

            Runs until SIGTERM or SIGINT (exit 0). A broker that cannot be reached or refuses the login \
            is shown on the page and retried; a --listen address that cannot be bound exits 69, a \
            --password-file that cannot be read 78.

            \(ExitStatus.help)
            """)

    @Option(help: "Broker host.")
    var host = "127.0.0.1"

    @Option(help: "Broker port (8883 is customary with TLS).")
    var port = 1883

    /// A dashboard login of the ACL, and TLS.
    @OptionGroup
    var login: BrokerLoginOptions

    @Option(help: "MQTT client id; default the user name (the shipped brokers bind a dashboard login to it), else beacon-dashboard-<random>.")
    var clientID: String?

    @Option(help: "Topic root (as the aggregators').")
    var topicRoot = "beaconnet"

    @Option(help: "Where to serve the page and the API, HOST:PORT (0.0.0.0:8080 for every interface).")
    var listen = "127.0.0.1:8080"

    /// The login, the names the page is reached by, the listener's limits.
    @OptionGroup
    var page: DashboardPageOptions

    @Option(help: "Log level: trace, debug, info, notice, warning, error, critical.")
    var logLevel = "info"

    func validate() throws {
        guard (1...65_535).contains(port) else { throw ValidationError("--port \(port) is not 1…65535") }
        try page.validate(listen: try listenAddress())
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level \(logLevel) is not a level") }
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
    }

    /// `--listen` as an address.
    func listenAddress() throws -> ListenAddress {
        do { return try ListenAddress(parsing: listen) } catch { throw ValidationError("--listen \(error)") }
    }

    func run() async throws {
        if page.hashPassword { return try DashboardPageOptions.printHash() }
        let level = Logger.Level(rawValue: logLevel) ?? .info
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let id = clientID ?? login.username ?? "beacon-dashboard-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        var mqtt = try login.configuration(host: host, port: port, clientID: id)
        // The retained device states arrive all at once at every (re)subscription.
        mqtt.inboundBufferCapacity = 200_000
        let address = try listenAddress()
        var settings = DashboardSettings(
            mqtt: mqtt, scheme: try TopicScheme(root: topicRoot), listenHost: address.host, listenPort: address.port,
            access: try page.access())
        page.apply(to: &settings)
        let logger = Logger(label: "beaconnet.dashboard")
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: DashboardApplication.service(settings: settings, logger: logger))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            // The dashboard's services retry the broker for ever: what ends them is the listener.
            throw Self.failure(.unavailable, "cannot serve on \(listen): \(error)")
        }
    }

    /// Says `message` on standard error and gives the exit code of `status`.
    static func failure(_ status: ExitStatus, _ message: String) -> ExitCode {
        FileHandle.standardError.write(Data("beacon-dashboard: \(message)\n".utf8))
        return ExitCode(status.rawValue)
    }
}
