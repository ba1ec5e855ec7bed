import BeaconCore
import Foundation
import Hummingbird

/// The dashboard's HTTP surface: the page and its assets, the JSON API and the event stream.
///
/// | route | answer |
/// | --- | --- |
/// | `GET /`, `GET /stores/<major>` | the page (all stores, or one) |
/// | `GET /api/stores` | every known store: plan, counts; and the broker link |
/// | `GET /api/stores/<major>` | one store with its newest events; 404 for an unknown store |
/// | `GET /api/devices/<id>` | a device's retained state; 404 when none is held |
/// | `GET /api/events` | the newest region events of every store, newest first |
/// | `GET /api/health` | broker link, aggregators, gateways |
/// | `GET /api/stream` | server-sent events: `occupancy`, `region`, `layout`, `health`, `broker` |
enum DashboardRoutes {
    /// A router over `store`.
    static func router(_ store: DashboardStore) -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/") { _, _ in WebAssets.page }
        router.get("stores/:major") { _, _ in WebAssets.page }
        router.get("dashboard.js") { _, _ in WebAssets.script }
        router.get("dashboard.css") { _, _ in WebAssets.style }
        router.get("api/stores") { _, _ in HTTPResponses.json(store.read { $0.storesView() }) }
        router.get("api/stores/:major") { _, context in storeResponse(store, context.parameters.get("major") ?? "") }
        router.get("api/devices/:id") { _, context in deviceResponse(store, context.parameters.get("id") ?? "") }
        router.get("api/events") { _, _ in HTTPResponses.json(store.read { $0.eventsView() }) }
        router.get("api/health") { _, _ in HTTPResponses.json(store.health()) }
        router.get("api/stream") { _, _ in HTTPResponses.eventStream(store.broadcaster.listen()) }
        router.get("api/**") { request, _ in
            HTTPResponses.error(.notFound, "not_found", "\(request.uri.path) is not part of the API: see docs/DASHBOARD.md")
        }
        return router
    }

    static func storeResponse(_ store: DashboardStore, _ text: String) -> Response {
        guard let major = StoreNumber(text), String(major) == text else {
            return HTTPResponses.error(.badRequest, "bad_store", "\(text) is not a store number (a decimal 0–65535, the iBeacon major)")
        }
        let (view, known) = store.read { ($0.storeView(major), $0.knownStores) }
        guard let view else {
            let list = known.isEmpty ? "none yet (is an aggregator running, and is the dashboard connected?)"
                : known.map(String.init).joined(separator: ", ")
            return HTTPResponses.error(.notFound, "unknown_store", "store \(major) is not known: no aggregator has published its layout or a count. Known stores: \(list)")
        }
        return HTTPResponses.json(view)
    }

    static func deviceResponse(_ store: DashboardStore, _ raw: String) -> Response {
        let text = raw.removingPercentEncoding ?? raw
        let device: DeviceID
        do {
            device = try DeviceID(text)
        } catch {
            return HTTPResponses.error(.badRequest, "bad_device", "\(text) is not a device id: \(error)")
        }
        guard let view = store.read({ $0.deviceView(device) }) else {
            return HTTPResponses.error(
                .notFound, "unknown_device",
                "no state is held for \(device): the aggregators have not seen it in the last hour, or it was never inside a store")
        }
        return HTTPResponses.json(view)
    }
}
