@testable import BeaconDashboard
import BeaconCore
import BeaconMQTT
import BeaconWire
import Dispatch
import FuzzSupport
import HTTPTypes
import Hummingbird
import HummingbirdBcrypt
import Logging
import NIOCore
import NIOEmbedded
import Synchronization

/// The dashboard's routers in process, as the server runs them but without a socket or a broker:
/// one with `--no-login`'s open access, one behind the login, over stores fed what an aggregator
/// of two stores publishes; and the session cookies of two logged-in users (every store, store
/// 101 only), so that inputs reach the API as a viewer of each kind does.
final class DashboardHarness: Sendable {
    /// Who the request is from: the first byte of an input picks one.
    enum Visitor: CaseIterable {
        /// Anyone, on a dashboard started with `--no-login`.
        case open
        /// Nobody logged in, on a dashboard with a login.
        case anonymous
        /// A user of every store, logged in.
        case chain
        /// A user of store 101 only, logged in.
        case store101

        /// The user the visitor is logged in as, if any.
        var user: String? {
            switch self {
            case .open, .anonymous: nil
            case .chain: "chain"
            case .store101: "shop"
            }
        }
    }

    private let open: RouterResponder<DashboardRequestContext>
    private let guarded: RouterResponder<DashboardRequestContext>
    /// The session cookie of each logged-in visitor.
    private let cookies: Mutex<[Visitor: String]>

    init() {
        // Cheap hashes (cost 4): a login attempt costs a millisecond, not a quarter of a second.
        let hash = Bcrypt.hash("fuzz-password", cost: 4)
        let users = try! DashboardUsers(contents: "chain:all:\(hash)\nshop:101:\(hash)\n", path: "users")
        let check = PasswordCheck(limit: 1_000_000, decoy: Bcrypt.hash("nobody knows", cost: 4))
        open = Self.responder(access: .open, check: check)
        let guarded = Self.responder(access: .login(users, secureCookie: false), check: check)
        self.guarded = guarded
        cookies = Mutex([.chain: Self.login("chain", on: guarded), .store101: Self.login("shop", on: guarded)])
    }

    /// What the router answers to `request` from `visitor`; a thrown error is one that escaped
    /// the router (the server would answer 500), which the target reports.
    func respond(_ request: FuzzRequest, as visitor: Visitor) -> Result<Response, any Error> {
        let responder = visitor == .open ? open : guarded
        let cookie = cookies.withLock { $0[visitor] }
        let result = Self.wait { try await responder.respond(to: request.request(cookie: cookie), context: Self.context()) }
        // A logout (or a new login) with the visitor's cookie ends or replaces its session: log in
        // again, so that every input from a logged-in visitor comes with a live session.
        if let user = visitor.user, request.head.method != .get, request.head.method != .head,
           case .success(let answer) = result, answer.status.code < 400 {
            let fresh = Self.login(user, on: guarded)
            cookies.withLock { $0[visitor] = fresh }
        }
        return result
    }

    /// Writes `response`'s body, as the server would send it.
    func bodyBytes(of response: Response) -> Result<Int, any Error> {
        Self.wait {
            let writer = CountingWriter()
            try await response.body.write(writer)
            return writer.count.load(ordering: .relaxed)
        }
    }

    /// Opens `response`'s endless event stream and leaves it, as a page that goes away does: the
    /// body's writing is cancelled, which ends the stream and frees its place among the open ones.
    func leaveStream(of response: Response) -> Result<Int, any Error> {
        Self.wait {
            let writer = CountingWriter()
            let writing = Task { try await response.body.write(writer) }
            writing.cancel()
            try await writing.value
            return writer.count.load(ordering: .relaxed)
        }
    }

    /// A router for `access` over a store that has read the traffic of stores 101 and 102.
    private static func responder(access: DashboardAccess, check: PasswordCheck) -> RouterResponder<DashboardRequestContext> {
        let settings = DashboardSettings(mqtt: MQTTConfiguration(clientID: "fuzz-dashboard"), access: access)
        let store = DashboardStore(settings: settings, clock: { Traffic.t0 + 5000 })
        for message in Traffic.messages { store.receive(message) }
        var logger = Logger(label: "fuzz.dashboard")
        logger.logLevel = .critical
        return DashboardRoutes.router(store: store, settings: settings, sessions: MemoryPersistDriver(), logger: logger, check: check)
            .buildResponder()
    }

    /// Logs `user` in and returns the session cookie (`name=value`) the answer sets.
    private static func login(_ user: String, on responder: RouterResponder<DashboardRequestContext>) -> String {
        let text = "POST /login\nHost: localhost\nContent-Type: application/x-www-form-urlencoded\n\nuser=\(user)&password=fuzz-password&next=/"
        let request = Array(text.utf8).withUnsafeBytes { FuzzRequest($0) }
        let response = wait { try await responder.respond(to: request.request(cookie: nil), context: context()) }
        guard case .success(let answer) = response, let cookie = answer.headers[.setCookie]?.split(separator: ";").first else {
            violated("the harness could not log \(user) in: \(response)")
        }
        return String(cookie)
    }

    /// A request's context, as the server makes one per request; every request shares one channel
    /// (an unclosed channel per request would be a leak to the fuzzer, not the dashboard's).
    private static func context() -> DashboardRequestContext {
        var logger = Logger(label: "fuzz.dashboard.request")
        logger.logLevel = .critical
        return DashboardRequestContext(source: ApplicationRequestContextSource(channel: channel, logger: logger))
    }

    /// The channel the requests come in on, which a context needs; the routes never use it.
    private static let channel = NIOAsyncTestingChannel()

    /// Runs `work` on the concurrency pool and waits for it here: libFuzzer's callback is
    /// synchronous, and runs on the main thread, never on the pool.
    private static func wait<Value: Sendable>(_ work: @escaping @Sendable () async throws -> Value) -> Result<Value, any Error> {
        let done = DispatchSemaphore(value: 0)
        let result = Mutex<Result<Value, any Error>?>(nil)
        Task {
            let outcome: Result<Value, any Error>
            do { outcome = .success(try await work()) } catch { outcome = .failure(error) }
            result.withLock { $0 = outcome }
            done.signal()
        }
        done.wait()
        return result.withLock { $0! }
    }
}

/// A response body writer that counts what it is given.
private final class CountingWriter: ResponseBodyWriter, Sendable {
    let count = Atomic<Int>(0)
    func write(_ buffer: ByteBuffer) async throws { count.add(buffer.readableBytes, ordering: .relaxed) }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
