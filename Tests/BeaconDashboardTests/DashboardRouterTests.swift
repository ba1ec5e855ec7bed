@testable import BeaconDashboard
import BeaconWire
import Foundation
import Hummingbird
import HummingbirdTesting
import TestSupport
import Testing

/// Every route of the dashboard in process (HummingbirdTesting's `.router`), over a store fed the
/// messages of one store's aggregator: the views, the errors with their status and sentence, the
/// page's files and the event stream.
@Suite("Dashboard routes in process")
struct DashboardRouterTests {
    @Test("the page and its files are served from the binary")
    func page() async throws {
        try await RouterClient.with { router in
            for (path, type, marker) in [
                ("/", "text/html", "/dashboard.js"), ("/stores/101", "text/html", "/dashboard.css"),
                ("/dashboard.js", "text/javascript", "new EventSource('/api/stream')"), ("/dashboard.css", "text/css", "svg.plan"),
            ] {
                let response = try await router.get(path)
                #expect(response.status == .ok && response.headers[.contentType]?.hasPrefix(type) == true, "\(path)")
                #expect(response.text.contains(marker), "\(path)")
            }
            #expect(try await router.get("/nothing-here").status == .notFound)
        }
    }

    @Test("/api/stores and /api/stores/<major>: plans, counts and a store's newest events, never cached")
    func stores() async throws {
        try await RouterClient.with { router in
            let (response, all) = try await router.get("/api/stores", as: StoresView.self)
            #expect(response.status == .ok && response.headers[.cacheControl] == "no-store")
            #expect(response.headers[.contentType] == "application/json; charset=utf-8")
            #expect(response.text.contains(#""has_layout":true"#), "snake_case keys")
            #expect(all.stores.map(\.major) == [101] && all.stores[0].sections.map(\.count) == [nil, 4])
            #expect(all.stores[0].events == nil && all.broker.state == "connecting")
            let one = try await router.get("/api/stores/101", as: StoreView.self).value
            #expect(one.name == "Lyon Part-Dieu" && one.events?.map(\.seq) == [2, 1])
        }
    }

    @Test("an unknown store is 404 listing the known ones; anything but a decimal 0–65535 is 400")
    func storeErrors() async throws {
        try await RouterClient.with { router in
            let (unknown, body) = try await router.get("/api/stores/999", as: RouterClient.ErrorBody.self)
            #expect(unknown.status == .notFound && unknown.headers[.cacheControl] == "no-store")
            #expect(body.error.message.contains("Known stores: 101"))
            for bad in ["abc", "0101", "70000", "-1"] {
                let (response, body) = try await router.get("/api/stores/\(bad)", as: RouterClient.ErrorBody.self)
                #expect(response.status == .badRequest && body.error.message.contains("is not a store number"), "\(bad)")
            }
        }
        try await RouterClient.with([]) { router in
            let body = try await router.get("/api/stores/101", as: RouterClient.ErrorBody.self).value
            #expect(body.error.message.contains("none yet"))
        }
    }

    @Test("/api/devices/<id>: a held state, 404 for one not held, 400 for a malformed id")
    func devices() async throws {
        try await RouterClient.with { router in
            let path = Fixture.device.rawValue.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            let (response, device) = try await router.get("/api/devices/\(path)", as: DeviceView.self)
            #expect(response.status == .ok && device.dev == Fixture.device.rawValue && device.state == "inside" && device.major == 101)
            let (nobody, message) = try await router.get("/api/devices/mac-00:00:00:00:00:00", as: RouterClient.ErrorBody.self)
            #expect(nobody.status == .notFound && message.error.message.contains("no state is held"))
            let (malformed, reason) = try await router.get("/api/devices/no%20spaces%20allowed", as: RouterClient.ErrorBody.self)
            #expect(malformed.status == .badRequest && reason.error.message.hasPrefix("no spaces allowed is not a device id"))
        }
    }

    @Test("/api/events newest first; /api/health with the aggregator and the gateway it hears")
    func eventsAndHealth() async throws {
        try await RouterClient.with { router in
            #expect(try await router.get("/api/events", as: [EventView].self).value.map(\.seq) == [2, 1])
            let health = try await router.get("/api/health", as: HealthView.self).value
            #expect(health.now == Fixture.t0 + 5000 && health.broker.state == "connecting")
            #expect(health.aggregators.map(\.id) == ["agg-1"] && health.aggregators[0].state == "online" && health.aggregators[0].lagMs == 900)
            #expect(health.gateways.map(\.id) == ["gw-101-1a"] && health.gateways[0].lostBatches == 3)
            #expect(health.messages == 6 && health.undecodable == 0 && health.devices == 1)
        }
    }

    @Test("anything else under /api/ is 404 with a sentence")
    func notFound() async throws {
        try await RouterClient.with { router in
            let (response, body) = try await router.get("/api/nothing/here", as: RouterClient.ErrorBody.self)
            #expect(response.status == .notFound && body.error.message.contains("/api/nothing/here is not part of the API"))
        }
    }

    @Test("/api/stream: the retry hint, then each change as an event, until the stream is closed")
    func stream() async throws {
        try await RouterClient.with { router in
            async let answer = router.get("/api/stream")
            _ = try await pollAsync("the stream to be listening", within: .seconds(300)) { router.store.broadcaster.count == 1 ? true : nil }
            router.store.receive(Fixture.message(Fixture.count(7).topic, Fixture.count(7).encoded()))
            router.store.receive(Fixture.message(.event(Fixture.event(3).region, .enter), Fixture.event(3).encoded()))
            router.store.broadcaster.closeAll()
            let response = try await answer
            #expect(response.headers[.contentType] == "text/event-stream; charset=utf-8")
            #expect(response.text.hasPrefix("retry: 2000\n: connected\n\n"))
            #expect(response.text.contains(#"event: occupancy"# + "\n" + #"data: {"count":7,"major":101,"minor":2,"t":1732350001000}"#))
            #expect(response.text.contains("event: region\ndata: {") && response.text.contains(#""seq":3"#))
        }
    }
}
