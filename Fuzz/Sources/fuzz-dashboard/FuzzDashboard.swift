import FuzzSupport
import HTTPTypes
import Hummingbird

/// The dashboard's HTTP routes in process: arbitrary methods, paths, query strings, headers (the
/// `Host` and `Origin` checks), cookies (the session) and bodies (the login form), from a visitor
/// of each kind (no login, anonymous, a user of every store, a user of one store). Properties: no
/// trap; no error escapes the router (the server would answer 500); every answer has a valid
/// status, never 500; and every answer writes its body (the endless event stream until it is left).
@main
enum FuzzDashboard {
    static func main() {
        _ = harness
        runFuzzer(testOneInput)
    }

    /// Built once, before the first input: routers, stores and sessions live across inputs, as
    /// they do across a server's requests.
    static let harness = DashboardHarness()

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = inputBytes(data, size)
        guard let first = bytes.first else { return 0 }
        let visitor = DashboardHarness.Visitor.allCases[Int(first) % DashboardHarness.Visitor.allCases.count]
        let request = FuzzRequest(UnsafeRawBufferPointer(rebasing: bytes.dropFirst()))
        let response: Response
        switch harness.respond(request, as: visitor) {
        case .success(let answer): response = answer
        case .failure(let error): violated("an error escaped the router for \(request.head.method) \(request.head.path ?? ""): \(error)")
        }
        let code = response.status.code
        guard (100...599).contains(code), code != 500 else {
            violated("\(request.head.method) \(request.head.path ?? "") answered \(code)")
        }
        // The event stream never ends by itself: it is left, as a page that goes away leaves it.
        let endless = response.headers[.contentType]?.hasPrefix("text/event-stream") == true
        if case .failure(let error) = endless ? harness.leaveStream(of: response) : harness.bodyBytes(of: response) {
            violated("the body of \(code) for \(request.head.path ?? "") could not be written: \(error)")
        }
        return 0
    }
}
