import Foundation
import Hummingbird
public import Logging
public import ServiceLifecycle

/// The live dashboard: a read-only MQTT consumer (``DashboardSettings/filters``) and a web page
/// with a JSON API and server-sent events behind a login, as one Hummingbird application. The
/// login sessions' storage, the broker feed and the update pump are the application's services:
/// started before the HTTP server and stopped after it (the server ends the open event streams
/// first, then the pump, then the feed disconnects).
public enum DashboardApplication {
    /// The dashboard `settings` describe, as a service to run in the program's `ServiceGroup`;
    /// `clock` gives Unix ms (the wall clock by default). Nothing connects or listens until it
    /// runs; it throws when the HTTP port cannot be bound.
    public static func service(
        settings: DashboardSettings, logger: Logger, clock: @escaping @Sendable () -> Int64 = DashboardApplication.systemClock
    ) -> some Service {
        application(settings: settings, store: DashboardStore(settings: settings, clock: clock), logger: logger)
    }

    /// The application over `store`.
    static func application(settings: DashboardSettings, store: DashboardStore, logger: Logger) -> some ApplicationProtocol {
        let url = "http://\(settings.listenHost.contains(":") ? "[\(settings.listenHost)]" : settings.listenHost):\(settings.listenPort)/"
        let sessions = MemoryPersistDriver()
        return Application(
            router: DashboardRoutes.router(store: store, settings: settings, sessions: sessions, logger: logger), server: settings.http.server,
            configuration: settings.http.configuration(
                host: settings.listenHost, port: settings.listenPort, serverName: "beacon-dashboard", statistics: store.listener,
                logger: logger),
            services: [
                sessions,
                BrokerFeedService(settings: settings, store: store, logger: logger),
                UpdatePumpService(settings: settings, store: store),
            ],
            onServerRunning: { _ in logger.notice("dashboard serving", metadata: ["http.url": "\(url)"]) },
            logger: logger)
    }

    /// Wall-clock Unix milliseconds.
    public static let systemClock: @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }
}
