@testable import BeaconDashboard
import BeaconMQTT
import Foundation
import Hummingbird
import HummingbirdTesting

/// The dashboard's router in process (HummingbirdTesting's `.router`): no socket, no broker; the
/// store is fed the messages an aggregator would publish.
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

    /// Runs `body` against a router over a store that has read `messages`, at the clock `now`.
    static func with<T: Sendable>(
        _ messages: [MQTTMessage] = Fixture.chain, now: Int64 = Fixture.t0 + 5000,
        _ body: @Sendable (RouterClient) async throws -> T
    ) async throws -> T {
        let settings = DashboardSettings(mqtt: MQTTConfiguration(clientID: "router-test"))
        let store = DashboardStore(settings: settings, clock: { now })
        for message in messages { store.receive(message) }
        let app = Application(router: DashboardRoutes.router(store))
        return try await app.test(.router) { client in try await body(RouterClient(store: store, client: client)) }
    }

    /// `GET path`: the status, the headers and the body.
    func get(_ path: String) async throws -> TestResponse {
        try await client.execute(uri: path, method: .get, headers: [:], body: nil)
    }

    /// `GET path` decoded as `T` (the API's snake_case JSON), with the response.
    func get<T: Decodable>(_ path: String, as: T.Type) async throws -> (response: TestResponse, value: T) {
        let response = try await get(path)
        return (response, try Self.decode(T.self, response))
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
