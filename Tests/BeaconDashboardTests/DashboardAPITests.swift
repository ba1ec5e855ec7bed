@testable import BeaconDashboard
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The dashboard's HTTP API with plain requests, against a real broker, the real aggregator and
/// the simulator publishing as every gateway of its default chain.
@Suite("Dashboard: HTTP API against a live chain", .serialized, .timeLimit(.minutes(5)))
struct DashboardAPITests {
    @Test("stores, one store, events, devices, health, the event stream and the page, with plain requests")
    func api() async throws {
        try await withDashboardStack { stack in
            let stores = try await stack.get("/api/stores", as: StoresView.self).value.stores
            #expect(stores.map(\.name) == ["Lyon Part-Dieu", "Villeurbanne", "Bron"])
            #expect(stores.allSatisfy { $0.sections.count == 6 && $0.sections.allSatisfy { ($0.polygon?.count ?? 0) >= 3 } })
            #expect(stores.allSatisfy { !$0.gateways.isEmpty && $0.gateways.allSatisfy { $0.position != nil } })
            #expect(stores.allSatisfy { $0.sections.contains(where: \.streetDoor) })

            let before = try await stack.sectionCounts()
            _ = try await pollAsync("a section's count to change as shoppers move", within: .seconds(60), every: .milliseconds(250)) {
                try await stack.sectionCounts() != before ? true : nil
            }

            let events = try await pollAsync("region events in the feed", within: .seconds(30)) {
                let events = try await stack.get("/api/events", as: [EventView].self).value
                return events.isEmpty ? nil : events
            }
            let store = try await stack.get("/api/stores/\(events[0].major)", as: StoreView.self)
            #expect(store.status == 200 && store.value.major == events[0].major && store.value.events?.isEmpty == false)
            let path = events[0].dev.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed) ?? events[0].dev
            let device = try await pollAsync("the state of \(events[0].dev)") {
                let (status, view) = try await stack.get("/api/devices/\(path)", as: DeviceView.self)
                return status == 200 ? view : nil
            }
            #expect(device.dev == events[0].dev)

            try await Self.errors(stack)
            try await Self.page(stack)

            let stream = try await stack.http.stream("/api/stream") { $0.contains("event: occupancy\ndata: {") }
            #expect(stream.lowercased().contains("content-type: text/event-stream"))

            let health = try await stack.get("/api/health", as: HealthView.self).value
            #expect(health.broker.state == "connected")
            #expect(health.aggregators.map(\.id) == ["agg-test"] && health.aggregators.first?.state == "online")
            #expect(health.gateways.count == 45 && health.undecodable == 0)

            // The broker goes away: the health says so (the page's banner reads it), and comes back.
            try await stack.broker.stop()
            _ = try await pollAsync("the dashboard to notice the broker is gone", within: .seconds(30)) {
                try await stack.get("/api/health", as: HealthView.self).value.broker.state == "lost" ? true : nil
            }
            #expect(try await stack.get("/api/stores", as: StoresView.self).value.stores.count == 3, "what was known stays")
            try await stack.broker.start()
            _ = try await pollAsync("the dashboard to reconnect", within: .seconds(60)) {
                try await stack.get("/api/health", as: HealthView.self).value.broker.state == "connected" ? true : nil
            }
        }
    }

    /// Unknown and malformed stores, devices and paths: a status and a JSON sentence each.
    static func errors(_ stack: DashboardStack) async throws {
        let unknown = try await stack.get("/api/stores/999", as: RouterClient.ErrorBody.self)
        #expect(unknown.status == 404 && unknown.value.error.message.contains("Known stores: 101, 102, 103"))
        for bad in ["abc", "0101", "70000"] {
            let answer = try await stack.get("/api/stores/\(bad)", as: RouterClient.ErrorBody.self)
            #expect(answer.status == 400 && answer.value.error.message.contains("is not a store number"), "\(bad)")
        }
        let nobody = try await stack.get("/api/devices/mac-00:00:00:00:00:00", as: RouterClient.ErrorBody.self)
        #expect(nobody.status == 404 && nobody.value.error.message.contains("no state is held"))
        let malformed = try await stack.get("/api/devices/no%20spaces%20allowed", as: RouterClient.ErrorBody.self)
        #expect(malformed.status == 400 && malformed.value.error.message.contains("is not a device id"))
        let elsewhere = try await stack.get("/api/nothing/here", as: RouterClient.ErrorBody.self)
        #expect(elsewhere.status == 404 && elsewhere.value.error.message.contains("is not part of the API"))
    }

    /// The page and its assets are served from the binary.
    static func page(_ stack: DashboardStack) async throws {
        for (path, type, marker) in [
            ("/", "text/html", "/dashboard.js"), ("/stores/101", "text/html", "/dashboard.css"),
            ("/dashboard.js", "text/javascript", "new EventSource('/api/stream')"), ("/dashboard.css", "text/css", "svg.plan"),
        ] {
            let reply = try await stack.http.get(path)
            #expect(reply.status == 200 && reply.headers["content-type"]?.hasPrefix(type) == true, "\(path)")
            #expect(reply.text.contains(marker), "\(path)")
        }
    }

    @Test("with no broker to reach, the dashboard serves and says so; unknown stores are 404")
    func noBroker() async throws {
        let directory = try TestDirectory.make("dashboard-alone").path
        let httpPort = try Broker.unusedPort(), brokerPort = try Broker.unusedPort()
        let dashboard = try ChildProcess(executable: try DashboardStack.binary("beacon-dashboard"), arguments: [
            "--port", "\(brokerPort)", "--listen", "127.0.0.1:\(httpPort)", "--no-login",
        ], outputFile: "\(directory)/dashboard.log")
        defer { dashboard.send(SIGKILL) }
        let http = HTTPProbe(port: httpPort)
        let health = try await pollAsync("the dashboard to report its failed connection", within: .seconds(30)) {
            let health = try await http.getJSON("/api/health", as: HealthView.self).value
            return health.broker.state == "connecting" && health.broker.detail != nil ? health : nil
        }
        #expect(health.aggregators.isEmpty && health.gateways.isEmpty)
        let stores = try await http.getJSON("/api/stores", as: StoresView.self).value
        #expect(stores.stores.isEmpty && stores.broker.state == "connecting")
        let unknown = try await http.getJSON("/api/stores/101", as: RouterClient.ErrorBody.self)
        #expect(unknown.status == 404 && unknown.value.error.message.contains("none yet"))
        dashboard.send(SIGTERM)
        #expect(await dashboard.waitForExit(timeout: .seconds(10)), "beacon-dashboard did not stop on SIGTERM")
        #expect(dashboard.exitStatus == 0)
    }
}
