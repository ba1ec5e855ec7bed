import Hummingbird

/// The dashboard's HTTP surface: the page and its files at the root, the JSON API and the event
/// stream under `/api` (``APIController``).
enum DashboardRoutes {
    /// A router over `store`.
    static func router(_ store: DashboardStore) -> Router<DashboardRequestContext> {
        let router = Router(context: DashboardRequestContext.self)
        router.get("/") { _, _ in WebAsset.page }
        router.get("stores/:major") { _, _ in WebAsset.page }
        router.get("dashboard.js") { _, _ in WebAsset.script }
        router.get("dashboard.css") { _, _ in WebAsset.style }
        APIController(store: store).addRoutes(to: router.group("api"))
        return router
    }
}
