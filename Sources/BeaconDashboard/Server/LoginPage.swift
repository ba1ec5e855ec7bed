import Foundation
import Hummingbird

/// `GET /login`: the login form (`Web/login.html`), with a line saying why it is shown again, and
/// the page to return to after. Nothing a visitor typed is written into it: the message is one
/// of ours and the return path is checked to be a page of the dashboard.
struct LoginPage: ResponseGenerator {
    /// Why the form is shown again.
    enum Message: Sendable {
        case failed
        case busy
        case incomplete
        case loggedOut

        var text: String {
            switch self {
            case .failed: "Wrong user name or password."
            case .busy: "Too many logins at once: try again in a moment."
            case .incomplete: "Give a user name and a password."
            case .loggedOut: "Logged out."
            }
        }
    }

    var message: Message?
    /// A path of the dashboard (``safeNext(_:)``).
    var next: String
    var status: HTTPResponse.Status = .ok

    func response(from request: Request, context: some RequestContext) -> Response {
        let message = self.message.map { #"<p class="error" id="login-message" role="alert">\#($0.text)</p>"# } ?? ""
        let page = String(decoding: PackageResources.login_html, as: UTF8.self)
            .replacingOccurrences(of: "<!--message-->", with: message)
            .replacingOccurrences(of: "{{next}}", with: next)
        return Response(
            status: status, headers: [.contentType: "text/html; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(string: page)))
    }

    /// `path` when it is one of the dashboard's pages (`/`, `/stores/<major>`,
    /// `/stores/<major>/history`, `/history`), else `/`: the login never sends a browser elsewhere.
    static func safeNext(_ path: String?) -> String {
        if path == "/history" { return "/history" }
        guard let path, path.hasPrefix("/stores/") else { return "/" }
        var store = path.dropFirst("/stores/".count)
        if store.hasSuffix("/history") { store = store.dropLast("/history".count) }
        guard !store.isEmpty, store.allSatisfy(\.isASCII), store.allSatisfy(\.isNumber) else { return "/" }
        return path
    }
}
