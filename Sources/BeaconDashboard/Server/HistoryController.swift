import BeaconCore
import BeaconHistory
import Foundation
import Hummingbird

/// beacon-history's report over a window — the JSON `beacon-history report --format json`
/// prints, computed by the same ``HistoryReport/make(query:database:)`` — from the database
/// given with `--history-database`: `GET /api/history/stores/<major>` for one store, and
/// `GET /api/history?stores=…` for a set of stores or the chain (the login's stores by default).
/// 400 for a malformed store or query (``HistoryQuery``), 403 for a store outside the login's,
/// 404 when the dashboard has no history database, 503 when the database cannot be opened or
/// read (its sentence says why).
struct HistoryController {
    typealias Context = DashboardRequestContext

    let archive: HistoryArchive
    /// Unix ms now: the default end of the window.
    let clock: @Sendable () -> Int64

    /// Adds the routes to `group` (the router's `/api`, behind the login).
    func addRoutes(to group: RouterGroup<Context>) {
        group.get("history", use: stores)
        group.get("history/stores/:major", use: store)
    }

    @Sendable func store(_ request: Request, context: Context) async throws -> Response {
        let scope = try context.requireIdentity().scope
        let major = try APIController.storeNumber(context.parameters.get("major") ?? "")
        guard scope.admits(major) else {
            throw HTTPError(.forbidden, message: "this login may see stores \(scope) only")
        }
        return try await report(of: [major], request)
    }

    @Sendable func stores(_ request: Request, context: Context) async throws -> Response {
        let scope = try context.requireIdentity().scope
        return try await report(of: try HistoryQuery.stores(request.uri.queryParameters.get("stores"), scope: scope), request)
    }

    /// The report of `stores` (every store when empty) over the window `request` asks for.
    private func report(of stores: Set<StoreNumber>, _ request: Request) async throws -> Response {
        let query = try HistoryQuery.make(stores: stores, parameters: request.uri.queryParameters, now: clock())
        let made: HistoryReport?
        do {
            made = try await archive.withDatabase { try await HistoryReport.make(query: query, database: $0) }
        } catch let error as HistoryDatabaseError {
            throw Self.unavailable(error)
        }
        guard let report = made else {
            throw HTTPError(
                .notFound,
                message: "this dashboard serves no history: start it with --history-database, the database beacon-history run writes")
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: report.rendered(as: .json))))
    }

    /// A database that cannot be used now: the recorder has not made it yet, its server is not
    /// reachable, it was written by a newer version, or it failed to read.
    static func unavailable(_ error: HistoryDatabaseError) -> HTTPError {
        HTTPError(.serviceUnavailable, message: "\(error)")
    }
}
