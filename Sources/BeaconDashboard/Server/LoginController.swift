import Hummingbird
import HummingbirdAuth
import Logging

/// The login: `GET /login` (the form), `POST /login` (checks the password, starts a session in
/// a cookie, back to the page asked for), `POST /logout` (ends it). With `--no-login` the login
/// page sends the browser to the dashboard.
struct LoginController {
    typealias Context = DashboardRequestContext

    /// The login form's fields (`application/x-www-form-urlencoded`).
    struct Form: Decodable {
        var user: String?
        var password: String?
        var next: String?
    }

    let access: DashboardAccess
    let check: PasswordCheck
    /// How long a session lasts without a new login.
    let sessionLifetime: Duration
    let logger: Logger

    /// Adds the routes to `router`.
    func addRoutes(to router: Router<Context>) {
        router.get("login", use: page)
        router.post("login", use: login)
        router.post("logout", use: logout)
    }

    @Sendable func page(_ request: Request, context: Context) -> Response {
        let next = LoginPage.safeNext(request.uri.queryParameters.get("next"))
        guard case .login = access, context.identity == nil else { return .redirect(to: next) }
        let message: LoginPage.Message? = request.uri.queryParameters.get("logged-out") == nil ? nil : .loggedOut
        return LoginPage(message: message, next: next).response(from: request, context: context)
    }

    @Sendable func login(_ request: Request, context: Context) async throws -> Response {
        guard case .login(let users, _) = access else { return .redirect(to: "/") }
        let form = (try? await URLEncodedFormDecoder().decode(Form.self, from: request, context: context)) ?? Form()
        let next = LoginPage.safeNext(form.next)
        guard let name = form.user, !name.isEmpty, let password = form.password, !password.isEmpty else {
            return LoginPage(message: .incomplete, next: next, status: .badRequest).response(from: request, context: context)
        }
        let user = users.user(name)
        switch await check.verify(password, hash: user?.passwordHash) {
        case .match:
            context.sessions.createSession(name, expiresIn: sessionLifetime)
            logger.info("dashboard login", metadata: ["http.user": "\(name)"])
            return .redirect(to: next)
        case .mismatch:
            logger.warning("dashboard login refused", metadata: ["http.user": "\(Self.printable(name))"])
            return LoginPage(message: .failed, next: next, status: .unauthorized).response(from: request, context: context)
        case .busy:
            return LoginPage(message: .busy, next: next, status: .tooManyRequests).response(from: request, context: context)
        }
    }

    @Sendable func logout(_ request: Request, context: Context) -> Response {
        context.sessions.clearSession()
        return .redirect(to: "/login?logged-out=1")
    }

    /// A name someone typed, safe for one log line: at most 64 characters, others than letters,
    /// digits, `.`, `_` and `-` as `?`.
    static func printable(_ name: String) -> String {
        String(name.prefix(64).map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "?" })
    }
}
