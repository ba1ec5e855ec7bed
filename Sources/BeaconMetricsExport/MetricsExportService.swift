import Hummingbird
public import Logging
public import ServiceLifecycle

/// Serves ``PrometheusExport/exposition()`` at `GET /metrics` on one address, until the service
/// group shuts down: the `--metrics HOST:PORT` of beacon-aggregator and beacon-edge. Everything
/// else answers 404. The listener holds at most ``HTTPListenerLimits/metrics`` connections and
/// closes idle ones, recording both in the export it serves (``HTTPListenerStatistics``), so a
/// flood of connections cannot take the process's file descriptors. A port that cannot be bound
/// fails the service, and with it the program, saying so — a metrics endpoint asked for and
/// silently missing would look like a dead process.
public struct MetricsExportService: Service {
    private let endpoint: ListenAddress
    private let export: PrometheusExport
    private let limits: HTTPListenerLimits
    private let logger: Logger

    /// The listener for `export` on `endpoint`, within `limits`.
    public init(endpoint: ListenAddress, export: PrometheusExport, limits: HTTPListenerLimits = .metrics, logger: Logger) {
        self.endpoint = endpoint
        self.export = export
        self.limits = limits
        self.logger = logger
    }

    /// Listens until the graceful shutdown or cancellation of the group that runs it.
    public func run() async throws {
        let router = Router()
        let export = self.export
        router.get("metrics") { _, _ -> Response in
            Response(
                status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
                body: ResponseBody(byteBuffer: ByteBuffer(string: export.exposition())))
        }
        let endpoint = self.endpoint
        let logger = self.logger
        var serverLogger = logger
        // Hummingbird logs every request at debug, and its lifecycle at info: keep the
        // program's own level, with the endpoint named.
        serverLogger[metadataKey: "metrics.endpoint"] = "\(endpoint)"
        let statistics = HTTPListenerStatistics(listener: "metrics", maxConnections: limits.maxConnections, factory: export.factory)
        let app = Application(
            router: router, server: limits.server,
            configuration: limits.configuration(
                host: endpoint.host, port: endpoint.port, serverName: "beaconnet-metrics", statistics: statistics, logger: serverLogger),
            onServerRunning: { _ in logger.info("serving metrics", metadata: ["metrics.url": "\(endpoint.url)metrics"]) },
            logger: serverLogger)
        do {
            try await app.run()
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Named, so that the programs can exit as "unavailable" rather than as a fault.
            throw MetricsListenError(endpoint: endpoint, reason: "\(error)", underlying: error)
        }
    }
}

/// The metrics endpoint could not serve: its address in use or not this machine's.
public struct MetricsListenError: Error, Sendable, CustomStringConvertible {
    /// The `--metrics` address.
    public var endpoint: ListenAddress
    /// What the HTTP server said.
    public var reason: String
    /// The server's own error (NIO's `IOError`, whose errno says in use or not this machine's),
    /// for a program to put in its words.
    public var underlying: (any Error)?

    public var description: String { "cannot serve metrics on \(endpoint): \(reason)" }
}
