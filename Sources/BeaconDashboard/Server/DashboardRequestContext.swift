import Foundation
import Hummingbird

/// The context of every dashboard request: Hummingbird's core storage, and the API's JSON
/// encoder, so that a view returned by a route is encoded the same way everywhere.
struct DashboardRequestContext: RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, endpoint).
    var coreContext: CoreRequestContextStorage

    /// A context for a request from `source`.
    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
    }

    /// Snake_case, sorted keys (``DashboardJSON``).
    var responseEncoder: JSONEncoder { DashboardJSON.encoder() }
}
