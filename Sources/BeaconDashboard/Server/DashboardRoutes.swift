import Hummingbird
import HummingbirdAuth
import Logging

/// The dashboard's HTTP surface, in the order a request meets it: the `Host` check, the security
/// headers, the session (or `--no-login`'s open access); then the login, the page's files, the
/// pages (a login first) and the JSON API with the event stream under `/api` (``APIController``,
/// and ``HistoryController`` for `/api/history`).
enum DashboardRoutes {
    /// A router over `store` for `settings`, keeping sessions in `sessions`, checking passwords
    /// with `check`.
    static func router(
        store: DashboardStore, settings: DashboardSettings, sessions: any PersistDriver, logger: Logger, check: PasswordCheck = PasswordCheck()
    ) -> Router<DashboardRequestContext> {
        let router = Router(context: DashboardRequestContext.self)
        router.add(middleware: HostCheckMiddleware(allowed: settings.allowedHosts))
        router.add(middleware: SecurityHeadersMiddleware())
        switch settings.access {
        case .login(let users, let secureCookie):
            let cookie = SessionCookieParameters(name: "beaconnet_session", secure: secureCookie, sameSite: .strict)
            router.add(middleware: SessionMiddleware(
                storage: sessions,
                configuration: SessionMiddlewareConfiguration(sessionCookieParameters: cookie, defaultSessionExpiration: settings.sessionLifetime)))
            router.add(middleware: SessionAuthenticator(context: DashboardRequestContext.self) { (name: String, _) in
                users.user(name).map { Viewer(login: .user($0.name), scope: $0.scope) }
            })
        case .open:
            router.add(middleware: OpenAccessMiddleware())
        }
        router.get("dashboard.js") { _, _ in WebAsset.script }
        router.get("dashboard.css") { _, _ in WebAsset.style }
        router.get("history.js") { _, _ in WebAsset.historyScript }
        router.get("d3.min.js") { _, _ in WebAsset.d3 }
        LoginController(access: settings.access, check: check, sessionLifetime: settings.sessionLifetime, logger: logger)
            .addRoutes(to: router)
        router.group().add(middleware: RequireViewerMiddleware(kind: .page))
            .get("/") { _, _ in WebAsset.page }
            .get("stores/:major") { _, _ in WebAsset.page }
            .get("health") { _, _ in WebAsset.page }
            .get("stores/:major/history") { _, _ in WebAsset.historyPage }
            .get("history") { _, _ in WebAsset.historyPage }
        let api = router.group("api").add(middleware: NoStoreMiddleware()).add(middleware: RequireViewerMiddleware(kind: .api))
        HistoryController(archive: HistoryArchive(location: settings.historyDatabase, logger: logger), clock: store.clock)
            .addRoutes(to: api)
        APIController(store: store).addRoutes(to: api)
        return router
    }
}
