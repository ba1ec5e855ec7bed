@testable import BeaconDashboard
import BeaconMQTT
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging

/// The dashboard's router in process (HummingbirdTesting's `.router`): no socket, no broker; the
/// store is fed the messages an aggregator would publish. Requests carry the session cookie of
/// the last ``login(_:_:)``, as a browser would.
struct RouterClient {
    /// The store the routes read.
    let store: DashboardStore
    /// Requests straight to the router.
    let client: any TestClientProtocol

    /// The body of an API error (Hummingbird's `HTTPError`).
    struct ErrorBody: Decodable {
        struct Detail: Decodable { var message: String }
        var error: Detail
    }

    /// Runs `body` against a router for `access` (every store, no login, by default) over a store
    /// that has read `messages`, at the clock `now`; `adjust` changes the settings first.
    static func with<T: Sendable>(
        _ messages: [MQTTMessage] = Fixture.chain, now: Int64 = Fixture.t0 + 5000, access: DashboardAccess = .open,
        adjust: (inout DashboardSettings) -> Void = { _ in },
        _ body: @Sendable (RouterClient) async throws -> T
    ) async throws -> T {
        var settings = DashboardSettings(mqtt: MQTTConfiguration(clientID: "router-test"), access: access)
        adjust(&settings)
        let store = DashboardStore(settings: settings, clock: { now })
        for message in messages { store.receive(message) }
        let router = DashboardRoutes.router(
            store: store, settings: settings, sessions: MemoryPersistDriver(), logger: Logger(label: "test.dashboard"))
        return try await Application(router: router).test(.router) { client in try await body(RouterClient(store: store, client: client)) }
    }

    /// `GET path` with `cookie`: the status, the headers and the body.
    func get(_ path: String, cookie: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [:]
        if let cookie { headers[.cookie] = cookie }
        return try await client.execute(uri: path, method: .get, headers: headers, body: nil)
    }

    /// `GET path` with `cookie`, decoded as `T` (the API's snake_case JSON), with the response.
    func get<T: Decodable>(_ path: String, as: T.Type, cookie: String? = nil) async throws -> (response: TestResponse, value: T) {
        let response = try await get(path, cookie: cookie)
        return (response, try Self.decode(T.self, response))
    }

    /// `POST path` with the form `form`, and `cookie` and `origin` when given.
    func post(_ path: String, form: String, cookie: String? = nil, origin: String? = nil) async throws -> TestResponse {
        var headers: HTTPFields = [.contentType: "application/x-www-form-urlencoded"]
        if let cookie { headers[.cookie] = cookie }
        if let origin { headers[.origin] = origin }
        return try await client.execute(uri: path, method: .post, headers: headers, body: ByteBuffer(string: form))
    }

    /// Logs in as `user`; returns the response and the session cookie (`name=value`) it set.
    func login(_ user: String, _ password: String, next: String = "/") async throws -> (response: TestResponse, cookie: String?) {
        let form = "user=\(user)&password=\(password)&next=\(next.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
        let response = try await post("/login", form: form)
        let cookie = response.headers[.setCookie].flatMap { $0.split(separator: ";").first.map(String.init) }
        return (response, cookie)
    }

    /// `response`'s body as `T`.
    static func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try decoder.decode(T.self, from: Data(response.body.readableBytesView))
    }
}

extension TestResponse {
    /// The body as UTF-8 text.
    var text: String { String(buffer: body) }
}
