import ArgumentParser
import BeaconAggregator
import BeaconCommandLine
import BeaconCore
import BeaconEngine
import BeaconMetricsExport
import BeaconMQTT
import BeaconWire
import Foundation
import Logging
import ServiceLifecycle

/// The version every component reports.
let beaconNetVersion = "0.1.0"

/// `beacon-aggregator run`: the live service.
struct RunService: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the aggregator: subscribe to sightings, decide, publish events, state and occupancy.",
        discussion: """
            Runs until SIGTERM or SIGINT (exit 0). A bad chain never starts: its problems are printed and \
            it exits 78. An unreachable broker is retried; one that refuses the login or the TLS ends it with 69.
            """)

    @Option(help: "The chain config (JSON); checked first — a bad config never starts.")
    var config: String

    @Option(help: "This instance's id (topic level: a-z, 0-9, -).")
    var id = "agg-1"

    @Option(help: "Only these stores, e.g. 1-250,300; default all.")
    var stores: String?

    /// The shard (or single broker) the sightings and gateway statuses are read from: its
    /// connection's login and client id, and its MQTT version and TLS.
    @OptionGroup(title: "Input broker")
    var broker: BrokerOptions

    /// The output hub, where everything is published and the retained states are read back:
    /// by default the input broker (see ``outputConfiguration(input:)``).
    @OptionGroup(title: "Output hub (default: the input broker)")
    var output: OutputBrokerOptions

    @Option(help: "Stand by for this primary instance (its --id): wait on the hub while it serves, take its stores over when its status says offline or goes stale, hand them back when it returns. Give the primary's --stores.")
    var standbyFor: String?

    @Option(help: "With --standby-for: a primary whose status is older than this has gone, seconds (1…3600; it refreshes every --status-interval).")
    var standbyStale: Double = 30

    @Option(help: "Snapshot file of device states, restored at start when newer than the retained ones.")
    var snapshot: String?

    @Option(help: "How often the snapshot is written, seconds (0.1…86400).")
    var snapshotInterval: Double = 10

    @Option(help: "How long the broker keeps this aggregator's session — and queues its sightings — while it is away (restart, crash), seconds (default 3600); 0: a clean session, nothing is queued. MQTT 5 only: on 3.1.1 the session is persistent, kept as long as the broker's own setting says (mosquitto: persistent_client_expiration).")
    var sessionExpiry: Double?

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    @Option(help: "Status refresh interval, seconds (0.1…86400).")
    var statusInterval: Double = 10

    @Flag(help: "Decide in event time only, never by this machine's clock (for time-compressed simulations).")
    var eventTime = false

    @Option(help: "Refuse batches sent longer ago than this (stale_time), seconds (10…31536000): at least the edges' longest outage buffer. With --event-time, measured from the chain's event time.")
    var maxBatchAge: Double = 86_400

    @OptionGroup
    var logging: LoggingOptions

    @Option(help: "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9464).")
    var metrics: String?

    /// Numbers are checked as ranges, which also refuses NaN and infinity (an interval of `inf`
    /// would trap converting to milliseconds; one of 0 would flood the broker).
    func validate() throws {
        guard (0.1...86_400).contains(statusInterval) else { throw ValidationError("--status-interval \(statusInterval) is not 0.1…86400 seconds") }
        guard (0.1...86_400).contains(snapshotInterval) else { throw ValidationError("--snapshot-interval \(snapshotInterval) is not 0.1…86400 seconds") }
        guard (10...31_536_000).contains(maxBatchAge) else { throw ValidationError("--max-batch-age \(maxBatchAge) is not 10…31536000 seconds") }
        if let sessionExpiry {
            guard (0...Double(UInt32.max)).contains(sessionExpiry) else { throw ValidationError("--session-expiry \(sessionExpiry) is not 0 … \(UInt32.max) seconds") }
            guard sessionExpiry == 0 || broker.resolvedVersion == .v5 else {
                throw ValidationError("--session-expiry \(sessionExpiry) needs MQTT 5: a 3.1.1 broker keeps a persistent session as long as its own setting says (mosquitto: persistent_client_expiration); leave it out, or give 0 for a clean session")
            }
        }
        guard (1...3600).contains(standbyStale) else { throw ValidationError("--standby-stale \(standbyStale) is not 1…3600 seconds") }
        if let standbyFor {
            do { _ = try AggregatorID(standbyFor) } catch { throw ValidationError("--standby-for \(error)") }
            guard standbyFor != id else { throw ValidationError("--standby-for \(standbyFor) is this instance's own --id: a standby needs an --id of its own") }
            guard (sessionExpiry ?? 0) == 0 else {
                throw ValidationError("--session-expiry \(sessionExpiry ?? 0) with --standby-for: a standby's sightings session is clean — kept, it would queue sightings for it while it stands by, and replay them, stale, at the next takeover")
            }
        }
        if let metrics {
            do { _ = try ListenAddress(parsing: metrics) } catch { throw ValidationError("--metrics \(error)") }
        }
        try validateOutput()
    }

    func run() async throws {
        let chain: Chain
        do {
            chain = try ChainConfig.load(path: config).resolve()
        } catch {
            print(error)
            throw ExitCode(.configError)
        }
        let selection: StoreSelection
        let aggregator: AggregatorID
        let primary: AggregatorID?
        let scheme: TopicScheme
        do {
            selection = try stores.map { try StoreSelection(parsing: $0) } ?? .all
            aggregator = try AggregatorID(id)
            primary = try standbyFor.map { try AggregatorID($0) }
            scheme = try TopicScheme(root: topicRoot)
        } catch {
            throw ValidationError("\(error)")
        }
        guard !selection.owned(chain.stores.map(\.major)).isEmpty else {
            throw ValidationError("--stores \(stores ?? "") selects none of the chain's \(chain.stores.count) stores (\(chain.stores.prefix(5).map { "\($0.major)" }.joined(separator: ", "))\(chain.stores.count > 5 ? ", …" : "")): this instance would own nothing")
        }
        var mqtt = try broker.configuration(defaultClientID: "beacon-aggregator-\(aggregator)")
        mqtt.inboundBufferCapacity = AggregatorSettings.inboundBuffer
        let expiry = primary == nil ? sessionExpiry ?? 3600 : 0
        mqtt.cleanSession = expiry == 0
        mqtt.sessionExpiry = .milliseconds(Int64(expiry * 1000))
        let hub = try outputConfiguration(input: mqtt)

        logging.bootstrap()
        let logger = Logger(label: "beaconnet.aggregator")
        var settings = AggregatorSettings(chain: chain, mqtt: mqtt, aggregator: aggregator, stores: selection, scheme: scheme,
                                          snapshotPath: snapshot, version: beaconNetVersion)
        settings.statusInterval = .milliseconds(Int64(statusInterval * 1000))
        settings.snapshotInterval = .milliseconds(Int64(snapshotInterval * 1000))
        settings.eventTimeOnly = eventTime
        settings.output = hub
        settings.maxBatchAge = .milliseconds(Int64(maxBatchAge * 1000))
        settings.standbyFor = primary
        settings.standbyStaleAfter = .milliseconds(Int64(standbyStale * 1000))
        // The metrics endpoint starts first and stops last, so a scrape sees the final counts.
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = []
        if let metrics, let endpoint = try? ListenAddress(parsing: metrics) {
            let export = PrometheusExport(help: AggregatorService.metricHelp)
            export.bootstrap()
            services.append(.init(service: MetricsExportService(endpoint: endpoint, export: export, logger: logger)))
        }
        services.append(.init(service: FailoverService(settings: settings, logger: logger)))
        let group = ServiceGroup(configuration: .init(
            services: services, gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        do {
            try await group.run()
        } catch let failure as BrokerConnectFailure {
            // Refused credentials or certificates, a TLS port: the service logged why; restarting
            // may help once the broker's side or the flags are fixed.
            throw exitCode(for: failure)
        } catch let error as MetricsListenError {
            throw ExitCode(.unavailable, saying: ListenFailure.message(error.underlying ?? error, address: "\(error.endpoint)", flag: "--metrics"))
        }
    }
}
