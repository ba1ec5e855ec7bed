import BeaconCore
import Foundation
import Hummingbird
import HummingbirdAuth

/// The JSON API and the event stream, over the dashboard's ``DashboardStore``, for a logged-in
/// viewer: every answer is limited to the stores the viewer may see. Each route returns a view
/// (encoded by the context) or throws an `HTTPError` whose message says what was wrong and what
/// is known instead.
///
/// | route | answer |
/// | --- | --- |
/// | `GET /api/stores` | every known store: plan, counts; and the broker link |
/// | `GET /api/stores/<major>` | one store with its newest events; 404 for an unknown store |
/// | `GET /api/devices/<id>` | a device's retained state; 404 when none is held |
/// | `GET /api/events` | the newest region events of every store, newest first |
/// | `GET /api/chain` | a page of the chain overview: stores searched, sorted, with their health |
/// | `GET /api/health` | broker link, aggregators, gateways (`?gateways=not-online`: only those) |
/// | `GET /api/health/problems` | what is wrong, problems first, a page at a time |
/// | `GET /api/stream` | server-sent events: `occupancy`, `region`, `layout`, `health`, `broker` |
struct APIController {
    typealias Context = DashboardRequestContext

    let store: DashboardStore

    /// Adds the routes to `group` (the router's `/api`, behind the login).
    func addRoutes(to group: RouterGroup<Context>) {
        group.get("stores") { _, context in
            let viewer = try context.requireIdentity()
            return store.read { $0.storesView(for: viewer) }
        }
        .get("stores/:major", use: storeView)
        .get("devices/:id", use: deviceView)
        .get("events") { _, context in
            let scope = try context.requireIdentity().scope
            return store.read { $0.eventsView(scope) }
        }
        .get("health") { request, context in
            var view = store.health(for: try context.requireIdentity().scope)
            switch request.uri.queryParameters.get("gateways") {
            case nil, "all": break
            // A chain's tens of thousands of gateways: the page's side panel asks for those not online.
            case "not-online": view.gateways.removeAll { $0.state == "online" }
            case let other?: throw HTTPError(.badRequest, message: "gateways \(other) is not all or not-online")
            }
            return view
        }
        .get("health/problems") { request, context in
            let viewer = try context.requireIdentity()
            let (page, perPage) = try ChainQuery.paging(request.uri.queryParameters)
            return store.problems(page: page, perPage: perPage, viewer: viewer)
        }
        .get("chain") { request, context in
            let viewer = try context.requireIdentity()
            return store.chain(try ChainQuery.make(request.uri.queryParameters), viewer: viewer)
        }
        .get("stream") { _, context in
            do {
                return EventStream(messages: try store.broadcaster.listen(scope: try context.requireIdentity().scope))
            } catch let refused as EventStreamRefused {
                throw HTTPError(.serviceUnavailable, headers: [.retryAfter: "10"], message: "\(refused)")
            }
        }
        .get("**") { request, _ -> Response in
            throw HTTPError(.notFound, message: "\(request.uri.path) is not part of the API: see docs/DASHBOARD.md")
        }
    }

    @Sendable func storeView(_ request: Request, context: Context) throws -> StoreView {
        let scope = try context.requireIdentity().scope
        let major = try Self.storeNumber(context.parameters.get("major") ?? "")
        guard scope.admits(major) else {
            throw HTTPError(.forbidden, message: "this login may see stores \(scope) only")
        }
        let (view, known) = store.read { ($0.storeView(major), $0.knownStores.filter(scope.admits)) }
        guard let view else {
            let list = known.isEmpty ? "none yet (is an aggregator running, and is the dashboard connected?)"
                : known.map(String.init).joined(separator: ", ")
            throw HTTPError(.notFound, message: "store \(major) is not known: no aggregator has published its layout or a count. Known stores: \(list)")
        }
        return view
    }

    /// `text` as a store number; a 400 for anything but a decimal 0–65535.
    static func storeNumber(_ text: String) throws(HTTPError) -> StoreNumber {
        guard let major = StoreNumber(text), String(major) == text else {
            throw HTTPError(.badRequest, message: "\(text) is not a store number (a decimal 0–65535, the iBeacon major)")
        }
        return major
    }

    @Sendable func deviceView(_ request: Request, context: Context) throws -> DeviceView {
        let raw = context.parameters.get("id") ?? ""
        let text = raw.removingPercentEncoding ?? raw
        let device: DeviceID
        do {
            device = try DeviceID(text)
        } catch {
            throw HTTPError(.badRequest, message: "\(text) is not a device id: \(error)")
        }
        let scope = try context.requireIdentity().scope
        guard let view = store.read({ $0.deviceView(device, scope) }) else {
            throw HTTPError(
                .notFound,
                message: "no state is held for \(device): the aggregators have not seen it in the last hour, or it was never inside a store")
        }
        return view
    }
}
