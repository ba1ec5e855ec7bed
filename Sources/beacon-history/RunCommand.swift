import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconHistory
import BeaconMetricsExport
import BeaconMQTT
import BeaconWire
import Foundation
import Logging
import ServiceLifecycle

/// `beacon-history run`: records the events and device states into the database until SIGTERM.
struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Record every store and section visit from the broker into the database.",
        discussion: """
            Subscribes to the aggregators' events and device states with QoS 1 and a persistent \
            session (a fixed --client-id; the broker queues what comes while the recorder is away), \
            as a history login of the shipped ACL (make-acl.sh --history NAME). Device ids are \
            stored as pseudonyms: HMAC-SHA256 under a key derived from --pseudonym-secret for each \
            --pseudonym-period. See docs/HISTORY.md.

            Runs until SIGTERM or SIGINT (exit 0), writing what it received first. A broker that \
            refuses the login or the TLS set-up exits 69; one that cannot be reached is waited for. \
            A database that cannot be opened, or holds another kind of device key, and an unreadable \
            or short --pseudonym-secret, and a --journal that cannot be opened or is another recorder's \
            exit 78; a PostgreSQL server that cannot be reached or \
            refuses the login exits 69.
            """)

    /// The broker, a history login, and TLS.
    @OptionGroup(title: "Broker")
    var broker: BrokerOptions

    @Option(help: "Topic root (as the aggregators').")
    var topicRoot = "beaconnet"

    @Option(help: "How long the broker keeps this recorder's session — and queues its events — while it is away, seconds (at least 1; default 86400). MQTT 5 only: on 3.1.1 the session is kept as long as the broker's own setting says (mosquitto: persistent_client_expiration).")
    var sessionExpiry: Double?

    /// Where and how the visits are kept.
    @OptionGroup(title: "Storage")
    var storage: StorageOptions

    @Option(help: ArgumentHelp(
        "The file keeping each message received until the visits it makes are written, so that a recorder killed (not stopped) loses nothing; none to keep no journal. Default: beside an SQLite database (FILE.arrivals); none for PostgreSQL.",
        valueName: "file"))
    var journal: String?

    @Option(help: "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9467): messages taken, records written, writes failed, records pending.")
    var metrics: String?

    @OptionGroup
    var logging: LoggingOptions

    func validate() throws {
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
        if let sessionExpiry {
            guard (1...Double(UInt32.max)).contains(sessionExpiry) else {
                throw ValidationError("--session-expiry \(sessionExpiry) is not 1 … \(UInt32.max) seconds: the recorder needs a persistent session")
            }
            guard broker.resolvedVersion == .v5 else {
                throw ValidationError("--session-expiry needs MQTT 5: a 3.1.1 broker keeps the recorder's persistent session as long as its own setting says (mosquitto: persistent_client_expiration); leave it out")
            }
        }
        try storage.validate()
        if let metrics {
            do { _ = try ListenAddress(parsing: metrics) } catch { throw ValidationError("--metrics \(error)") }
        }
    }

    func run() async throws {
        logging.bootstrap()
        let logger = Logger(label: "beaconnet.history")
        var mqtt = try broker.configuration(defaultClientID: broker.login.username ?? "beacon-history")
        mqtt.cleanSession = false
        mqtt.sessionExpiry = .milliseconds(Int64((sessionExpiry ?? 86_400) * 1000))
        // The connection only receives: a reader that falls behind leaves the backlog in the broker.
        mqtt.inboundOverflow = .pauseReading
        mqtt.inboundBufferCapacity = 100_000
        var settings = HistorySettings(mqtt: mqtt, scheme: try TopicScheme(root: topicRoot))
        settings.keepDays = storage.keepDays
        settings.journalPath = try journalPath(logger)
        let keying = try storage.keying()
        let book = VisitBook(keying: keying, limits: storage.limits)
        // Before the recorder makes its metrics: they are made through the bootstrapped factory.
        var alongside: [any Service] = []
        if let metrics, let endpoint = try? ListenAddress(parsing: metrics) {
            let export = PrometheusExport(help: RecorderMetrics.help)
            export.bootstrap()
            alongside.append(MetricsExportService(endpoint: endpoint, export: export, logger: logger))
        }
        try await storage.database.withDatabase(access: storage.access(keying: keying), logger: logger) { database in
            do throws(HistoryRunError) {
                try await HistoryRuntime.run(settings: settings, book: book, database: database, logger: logger, alongside: alongside)
            } catch {
                throw Self.exit(error, mqtt: mqtt)
            }
        }
    }

    /// `--journal`, or its default for the database.
    private func journalPath(_ logger: Logger) throws -> String? {
        if journal == "none" { return nil }
        if let journal {
            if case .sqlite(let path) = try storage.database.location(),
               URL(fileURLWithPath: journal).standardizedFileURL == URL(fileURLWithPath: path).standardizedFileURL {
                throw ValidationError("--journal \(journal) is the --database itself: give the journal a file of its own")
            }
            return journal
        }
        if case .sqlite(let path) = try storage.database.location() { return path + ".arrivals" }
        logger.notice("no --journal: a recorder killed rather than stopped loses the messages it had not written (about a second's)")
        return nil
    }

    /// The exit for a recorder that could not run.
    private static func exit(_ error: HistoryRunError, mqtt: MQTTConfiguration) -> ExitCode {
        switch error {
        case .broker(let failure):
            ExitCode(.unavailable, saying: BrokerFailure.message(failure, mqtt, role: "a history login (make-acl.sh --history NAME)"))
        case .database(let failure):
            ExitCode(DatabaseOptions.status(of: failure), saying: "\(failure)")
        case .journal(let failure):
            ExitCode(.configError, saying: "\(failure)")
        case .stopped(let failure as MetricsListenError):
            ExitCode(.unavailable, saying: ListenFailure.message(failure.underlying ?? failure, address: "\(failure.endpoint)", flag: "--metrics"))
        case .stopped(let failure):
            ExitCode(.internalFailure, saying: "stopped: \(failure)")
        }
    }
}
