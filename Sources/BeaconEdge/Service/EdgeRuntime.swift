public import BeaconCore
import BeaconMQTT
public import BeaconWire
public import Logging
public import CoreMetrics
public import ServiceLifecycle

/// One beacon-edge, assembled: the services in start order — broker session, publisher,
/// pipeline, source — sharing the counters and the outage buffer, in one `ServiceGroup` that shuts
/// down gracefully on SIGTERM and SIGINT (in reverse: the source stops, the pipeline seals its last
/// window, the publisher flushes, the session publishes its final status and disconnects).
public final class EdgeRuntime: Sendable {
    /// Where advertising reports come from.
    public enum Source: Sendable {
        /// A live adapter, already scanning.
        case hci(HCIScanner)
        /// A capture, with its speed and the offset added to its timestamps (µs).
        case replay(BtsnoopFile, path: String, speed: BtsnoopReplay.Speed, timeOffset: Int64)
    }

    /// The config it runs with.
    public let config: EdgeConfig
    /// The shared counters.
    public let counters: EdgeCounters
    /// The outage buffer.
    public let buffer: OutageBuffer
    /// The MQTT session (connection and status).
    public let session: BrokerSession
    /// The publisher.
    public let publisher: BatchPublisher
    /// The pipeline.
    public let pipeline: SightingPipelineService
    /// The source's service.
    public let source: any Service
    /// The topics.
    public let scheme: TopicScheme
    private let logger: Logger

    /// Builds every service; nothing runs until ``run()``.
    /// - Throws: ``SpillFileError`` when the configured spill file cannot be used.
    public init(
        config: EdgeConfig, source: Source, flushTimeout: Duration = .seconds(10), logLevel: Logger.Level = .info,
        metrics: any MetricsFactory = MetricsSystem.factory
    ) throws(SpillFileError) {
        func logger(_ component: String) -> Logger {
            var logger = Logger(label: "beaconnet.edge.\(component)")
            logger.logLevel = logLevel
            logger[metadataKey: "gateway.id"] = "\(config.gateway.rawValue)"
            return logger
        }
        self.config = config
        self.logger = logger("runtime")
        let counters = EdgeCounters(gateway: config.gateway.rawValue, metrics: metrics)
        self.counters = counters
        let scheme = (try? TopicScheme(root: config.topicRoot)) ?? .standard
        self.scheme = scheme
        let buffer = try OutageBuffer(
            maxBatches: config.buffer.maxBatches,
            memoryBatches: config.buffer.spillFile == nil ? nil : config.buffer.memoryBatches,
            spillFile: config.buffer.spillFile, counters: counters, logger: logger("buffer"))
        self.buffer = buffer
        let adapter: String
        switch source {
        case .hci(let scanner): adapter = scanner.adapter
        case .replay(_, let path, _, _): adapter = "replay:" + (path.split(separator: "/").last.map(String.init) ?? path)
        }
        let status = StatusReporter(
            gateway: config.gateway, section: SectionRef(store: config.store, section: config.section), adapter: adapter,
            counters: counters, buffer: buffer, scheme: scheme)
        let client = MQTTClient(configuration: BrokerSession.configuration(for: config, scheme: scheme), logger: logger("mqtt"))
        session = BrokerSession(
            client: client, status: status, statusInterval: .seconds(config.statusIntervalSeconds), logger: logger("session"))
        publisher = BatchPublisher(
            session: session, buffer: buffer, topic: scheme.string(for: .sightings(store: config.store, gateway: config.gateway)),
            counters: counters, flushTimeout: flushTimeout, logger: logger("publisher"))
        // A run that continues a spilled one continues its sequence too.
        let firstSequence = buffer.lastSequence.map { $0 + 1 } ?? 0
        pipeline = SightingPipelineService(
            pipeline: ReportPipeline(
                allowList: config.allowList,
                batcher: Batcher(
                    gateway: config.gateway, windowMilliseconds: config.batchWindowMilliseconds, firstSequence: firstSequence,
                    // The run's name: the aggregator then knows that a sequence starting again is a restart.
                    epoch: HCIScanner.now() / 1000, includeAddress: config.includeAddress)),
            buffer: buffer, counters: counters, logger: logger("pipeline"))
        switch source {
        case .hci(let scanner):
            self.source = HCIScanService(scanner: scanner, output: pipeline.input, logger: logger("hci"))
        case .replay(let file, let path, let speed, let offset):
            self.source = BtsnoopReplay(
                file: file, path: path, speed: speed, timeOffset: offset, output: pipeline.input, counters: counters,
                logger: logger("replay"))
        }
    }

    /// Runs until SIGTERM/SIGINT (or, for a replay, the end of the file), then shuts down in order.
    /// Throws what a service threw (an adapter that failed); returns normally otherwise — check
    /// ``unflushedBatches`` for what the broker did not take. Tests pass `handlingSignals: false`, so
    /// the test process keeps its own handlers. `alongside` (the metrics endpoint) start first and
    /// stop last; one that fails shuts the edge down gracefully.
    public func run(handlingSignals: Bool = true, alongside: [any Service] = []) async throws {
        let replay = source is BtsnoopReplay
        let group = ServiceGroup(
            configuration: ServiceGroupConfiguration(
                services: alongside.map { .init(service: $0, failureTerminationBehavior: .gracefullyShutdownGroup) } + [
                    .init(service: session),
                    .init(service: publisher),
                    .init(service: pipeline),
                    .init(
                        service: source, successTerminationBehavior: replay ? .gracefullyShutdownGroup : .cancelGroup,
                        failureTerminationBehavior: .gracefullyShutdownGroup),
                ],
                gracefulShutdownSignals: handlingSignals ? [.sigterm, .sigint] : [],
                cancellationSignals: [],
                logger: logger))
        logger.info(
            "beacon-edge starting",
            metadata: [
                "gateway.store": "\(config.store)", "gateway.section": "\(config.section)",
                "mqtt.broker": "\(config.broker.host):\(config.broker.port)",
            ])
        try await group.run()
    }

    /// After ``run()``: batches the broker did not acknowledge (0 when everything was flushed).
    public var unflushedBatches: Int { publisher.unflushedBatches ?? buffer.count }
}
