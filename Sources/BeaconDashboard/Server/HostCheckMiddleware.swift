import Hummingbird

/// Refuses a request whose `Host` is not a name the dashboard is reached by (and, for a request
/// that changes something, whose `Origin` is another site's): a page of another site that has
/// its name resolve to this machine (DNS rebinding) would otherwise read the dashboard with the
/// browser's own access. The names are the loopback ones, the listen address, and `--allow-host`.
struct HostCheckMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Host names and addresses, lowercased, IPv6 without brackets.
    let allowed: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let authority = request.head.authority, let host = Self.host(ofAuthority: authority), allowed.contains(host) else {
            let given = request.head.authority.map { "Host \($0)" } ?? "a request without a Host"
            throw HTTPError(.misdirectedRequest, message: "\(given) is not a name this dashboard answers to: start it with --allow-host NAME for each name it is reached by")
        }
        if request.method != .get, request.method != .head, let origin = request.headers[.origin] {
            guard let host = Self.host(ofOrigin: origin), allowed.contains(host) else {
                throw HTTPError(.forbidden, message: "a request from \(origin) is refused: only the dashboard's own pages may send it")
            }
        }
        return try await next(request, context)
    }

    /// `example.com`, `127.0.0.1`, `::1` from `Example.com:8080`, `127.0.0.1`, `[::1]:8080`.
    static func host(ofAuthority authority: String) -> String? {
        let text = authority.lowercased()
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            return String(text[text.index(after: text.startIndex)..<close])
        }
        let host = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
        return host.isEmpty ? nil : host
    }

    /// The host of an `Origin` (`http://example.com:8080`); nil for `null` or anything else.
    static func host(ofOrigin origin: String) -> String? {
        guard let schemeEnd = origin.range(of: "://") else { return nil }
        return host(ofAuthority: String(origin[schemeEnd.upperBound...]))
    }
}
