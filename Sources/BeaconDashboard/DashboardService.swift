public import Logging
public import ServiceLifecycle
import Foundation

/// The live dashboard: a read-only MQTT consumer (``DashboardSettings/filters``) and a web page
/// with a JSON API and server-sent events, as one service. It runs three services in order —
/// the HTTP server, the broker feed, the update pump — and stops them in reverse: the pump ends
/// every open event stream, the feed disconnects, the server stops.
public final class DashboardService: Service, Sendable {
    private let settings: DashboardSettings
    private let logger: Logger
    private let store: DashboardStore

    /// A dashboard as `settings` describe it; `clock` gives Unix ms (the wall clock by default).
    /// Nothing connects or listens until ``run()``.
    public init(settings: DashboardSettings, logger: Logger, clock: @escaping @Sendable () -> Int64 = DashboardService.systemClock) {
        self.settings = settings
        self.logger = logger
        store = DashboardStore(settings: settings, clock: clock)
    }

    /// Serves and reads until a graceful shutdown. Throws when the HTTP port cannot be bound.
    public func run() async throws {
        let group = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [
                .init(service: DashboardHTTPService(settings: settings, store: store, logger: logger)),
                .init(service: BrokerFeedService(settings: settings, store: store, logger: logger)),
                .init(service: UpdatePumpService(settings: settings, store: store)),
            ],
            gracefulShutdownSignals: [], cancellationSignals: [], logger: logger))
        try await group.run()
    }

    /// Wall-clock Unix milliseconds.
    public static let systemClock: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
