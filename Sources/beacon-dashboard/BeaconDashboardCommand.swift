import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconDashboard
import BeaconHistory
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
            serves the page, a JSON API and server-sent events on --listen; with --history-database, \
            each store's history (charts and /api/history) from beacon-history's database. See \
            docs/DASHBOARD.md.

            Runs until SIGTERM or SIGINT (exit 0). A broker that cannot be reached or refuses the login \
            is shown on the page and retried; a --listen address that cannot be bound exits 69, a \
            --password-file that cannot be read 78.
            """)

    /// The broker, a dashboard login of the ACL, and TLS.
    @OptionGroup(title: "Broker")
    var broker: BrokerOptions

    @Option(help: "Topic root (as the aggregators').")
    var topicRoot = "beaconnet"

    @Option(help: "Where to serve the page and the API, HOST:PORT (0.0.0.0:8080 for every interface).")
    var listen = "127.0.0.1:8080"

    @Option(help: ArgumentHelp(
        "The database beacon-history run writes, read only, for the history pages and /api/history: its SQLite file, or its postgres://USER@HOST[:PORT]/DATABASE (a read-only role will do). None: no history.",
        valueName: "file-or-url"))
    var historyDatabase: String?

    @Option(help: "A file whose first line is the PostgreSQL role's password (instead of one in the URL, which ps shows).")
    var historyDatabasePasswordFile: String?

    /// The login, the names the page is reached by, the listener's limits.
    @OptionGroup
    var page: DashboardPageOptions

    @OptionGroup
    var logging: LoggingOptions

    func validate() throws {
        try page.validate(listen: try listenAddress())
        let history = try parsedHistoryLocation()
        if historyDatabasePasswordFile != nil {
            guard case .postgres? = history else {
                throw ValidationError("--history-database-password-file is for a postgres:// --history-database only")
            }
        }
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
    }

    /// Runs as ArgumentParser's own `main` does, the help ending with the exit statuses.
    static func main() async {
        await mainEndingHelpWithExitStatuses()
    }

    /// `--listen` as an address.
    func listenAddress() throws -> ListenAddress {
        do { return try ListenAddress(parsing: listen) } catch { throw ValidationError("--listen \(error)") }
    }

    private func parsedHistoryLocation() throws -> HistoryDatabaseLocation? {
        do {
            return try historyDatabase.map { try HistoryDatabaseLocation(parsing: $0) }
        } catch {
            throw ValidationError("--history-database \(error)")
        }
    }

    /// Where the history is, the password read from its file (exit 78 when it cannot be).
    func historyLocation() throws -> HistoryDatabaseLocation? {
        let password = try historyDatabasePasswordFile.map { try BrokerLoginOptions.password(from: $0, flag: "--history-database-password-file") }
        return try parsedHistoryLocation()?.replacingPassword(with: password)
    }

    func run() async throws {
        if page.hashPassword { return try DashboardPageOptions.printHash() }
        logging.bootstrap()
        let id = broker.login.username ?? "beacon-dashboard-\(String(UInt64.random(in: 0...UInt64.max), radix: 16))"
        var mqtt = try broker.configuration(defaultClientID: id)
        // The retained device states arrive all at once at every (re)subscription.
        mqtt.inboundBufferCapacity = 200_000
        let address = try listenAddress()
        var settings = DashboardSettings(
            mqtt: mqtt, scheme: try TopicScheme(root: topicRoot), listenHost: address.host, listenPort: address.port,
            access: try page.access())
        page.apply(to: &settings)
        settings.historyDatabase = try historyLocation()
        let logger = Logger(label: "beaconnet.dashboard")
        if case .sqlite(let path)? = settings.historyDatabase, !FileManager.default.fileExists(atPath: path) {
            // The recorder may start later and make it; until then the history answers 503.
            logger.warning("--history-database \(path) does not exist yet: history is unavailable until beacon-history makes it")
        }
        try await BrokerPreflight.check(mqtt, logger: logger)
        let group = ServiceGroup(configuration: .init(
            services: [.init(service: DashboardApplication.service(settings: settings, logger: logger))],
            gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch {
            // The dashboard's services retry the broker for ever: what ends them is the listener.
            throw ExitCode(.unavailable, saying: ListenFailure.message(error, address: listen, flag: "--listen"))
        }
    }
}
