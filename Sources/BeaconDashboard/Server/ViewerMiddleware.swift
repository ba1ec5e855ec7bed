import Hummingbird
import HummingbirdAuth

/// Lets a request through only with a viewer: the API answers 401, a page sends the browser to
/// the login page (coming back to the page after).
struct RequireViewerMiddleware: RouterMiddleware {
    typealias Context = DashboardRequestContext

    /// What the routes behind it are.
    enum Kind: Sendable {
        /// JSON for programs and the page's script.
        case api
        /// A page a person opens.
        case page
    }

    let kind: Kind

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard context.identity == nil else { return try await next(request, context) }
        switch kind {
        case .api:
            throw HTTPError(.unauthorized, message: "log in first: the page at /login (POST /login with user and password)")
        case .page:
            return .redirect(to: "/login?next=\(LoginPage.safeNext(request.uri.path))")
        }
    }
}

/// `--no-login`: every request is a viewer of the whole chain.
struct OpenAccessMiddleware: RouterMiddleware {
    typealias Context = DashboardRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var context = context
        context.identity = Viewer(login: .none, scope: .chain)
        return try await next(request, context)
    }
}
