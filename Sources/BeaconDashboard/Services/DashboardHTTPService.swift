import Hummingbird
import Logging
import ServiceLifecycle

/// Serves ``DashboardRoutes`` on the configured address until the group shuts down. A port that
/// cannot be bound fails the dashboard, saying so.
struct DashboardHTTPService: Service {
    let settings: DashboardSettings
    let store: DashboardStore
    let logger: Logger

    func run() async throws {
        let logger = self.logger
        let url = "http://\(settings.listenHost.contains(":") ? "[\(settings.listenHost)]" : settings.listenHost):\(settings.listenPort)/"
        let app = Application(
            router: DashboardRoutes.router(store),
            configuration: ApplicationConfiguration(
                address: .hostname(settings.listenHost, port: settings.listenPort), serverName: "beacon-dashboard"),
            onServerRunning: { _ in logger.notice("dashboard serving", metadata: ["http.url": "\(url)"]) },
            logger: logger)
        try await app.run()
    }
}
