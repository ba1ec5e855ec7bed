public import CoreMetrics
public import Logging
public import ServiceLifecycle

/// `beacon-aggregator run`: one ``AggregatorService`` after another, for as long as the process
/// runs. Each instance starts with fresh decisions restored from the hub. A standby
/// (``AggregatorSettings/standbyFor``) that handed its stores back stands by again; a primary whose
/// standby took the stores over while it was not heard (its status stale: a frozen process, a
/// paused machine) starts again, and takes them back through the hand-back rather than decide on
/// from states that have moved on. Anything else that ends an instance ends the service.
public final class FailoverService: Service, Sendable {
    private let settings: AggregatorSettings
    private let logger: Logger
    private let metrics: any MetricsFactory

    /// Instances as `settings` describe them, their counters going to `metrics`.
    public init(settings: AggregatorSettings, logger: Logger, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.settings = settings
        self.logger = logger
        self.metrics = metrics
    }

    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            let instance = AggregatorService(settings: settings, logger: logger, metrics: metrics)
            try await instance.run()
            guard instance.handedBack || instance.superseded else { return }
        }
    }
}
