import Foundation
import Hummingbird
import HummingbirdAuth

/// The context of every dashboard request: Hummingbird's core storage, the login session (the
/// user's name, in a cookie), the viewer once logged in, and the API's JSON encoder, so that a
/// view returned by a route is encoded the same way everywhere.
struct DashboardRequestContext: AuthRequestContext, SessionRequestContext, RequestContext {
    /// Hummingbird's per-request storage (logger, parameters, endpoint).
    var coreContext: CoreRequestContextStorage
    /// Who is looking, once the session (or `--no-login`) says so.
    var identity: Viewer?
    /// The session: the user's name.
    let sessions: SessionContext<String>

    /// A context for a request from `source`.
    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        identity = nil
        sessions = SessionContext()
    }

    /// Snake_case, sorted keys (``DashboardJSON``).
    var responseEncoder: JSONEncoder { DashboardJSON.encoder() }

    /// The only body the dashboard reads is the login form.
    var maxUploadSize: Int { 16 * 1024 }
}
