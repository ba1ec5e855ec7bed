import BeaconCore
import BeaconHistory
import Foundation
import Hummingbird

/// `GET /api/history/stores/<major>`: beacon-history's report of one store over a window — the
/// JSON `beacon-history report --format json` prints, computed by the same
/// ``HistoryReport/make(query:database:)`` — from the database given with `--history-database`,
/// for a viewer allowed to see the store. 400 for a malformed store or query
/// (``HistoryQuery``), 403 for a store outside the login's, 404 when the dashboard has no history
/// database, 503 when the database cannot be opened or read (its sentence says why).
struct HistoryController {
    typealias Context = DashboardRequestContext

    let archive: HistoryArchive
    /// Unix ms now: the default end of the window.
    let clock: @Sendable () -> Int64

    /// Adds the route to `group` (the router's `/api`, behind the login).
    func addRoutes(to group: RouterGroup<Context>) {
        group.get("history/stores/:major", use: report)
    }

    @Sendable func report(_ request: Request, context: Context) async throws -> Response {
        let scope = try context.requireIdentity().scope
        let major = try APIController.storeNumber(context.parameters.get("major") ?? "")
        guard scope.admits(major) else {
            throw HTTPError(.forbidden, message: "this login may see stores \(scope) only")
        }
        let opened: SQLiteHistoryDatabase?
        do { opened = try archive.database() } catch { throw Self.unavailable(error) }
        guard let database = opened else {
            throw HTTPError(
                .notFound,
                message: "this dashboard serves no history: start it with --history-database FILE, the database beacon-history run writes")
        }
        let query = try HistoryQuery.make(store: major, parameters: request.uri.queryParameters, now: clock())
        let report: HistoryReport
        do { report = try await HistoryReport.make(query: query, database: database) } catch { throw Self.unavailable(error) }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: report.rendered(as: .json))))
    }

    /// A database that cannot be used now: the recorder has not made it yet, it was written by a
    /// newer version, or it failed to read.
    static func unavailable(_ error: HistoryDatabaseError) -> HTTPError {
        HTTPError(.serviceUnavailable, message: "\(error)")
    }
}
