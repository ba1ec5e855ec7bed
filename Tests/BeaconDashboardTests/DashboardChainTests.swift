import BeaconCore
@testable import BeaconDashboard
import BeaconMQTT
import BeaconWire
import Testing

/// The chain overview (`/api/chain`) and the health page's list (`/api/health/problems`) in
/// process, over a chain of 30 stores: 101–115 served by an online aggregator, 116–130 by one
/// that went offline; store 103 with one of its two gateways offline (its Last Will).
@Suite("The chain overview and what is wrong")
struct DashboardChainTests {
    static let stores: ClosedRange<StoreNumber> = 101...130

    /// Store `major`'s layout: two sections, a gateway in each.
    static func layout(_ major: StoreNumber) -> StoreLayout {
        StoreLayout(
            store: major, name: major == 107 ? "Écully Grand Ouest" : "Store \(major)", time: Fixture.t0,
            sections: [.init(minor: 1, name: "Entrance", adjacent: [2], streetDoor: true), .init(minor: 2, name: "Back", adjacent: [1])],
            gateways: [.init(id: gateway(major, 1), section: 1), .init(id: gateway(major, 2), section: 2)])
    }

    static func gateway(_ major: StoreNumber, _ section: Int) -> GatewayID { try! GatewayID("gw-\(major)-\(section)") }

    static func aggregator(_ id: String, stores: String, state: Availability = .online, standbyFor: String? = nil) -> MQTTMessage {
        let status = AggregatorStatus(
            aggregator: try! AggregatorID(id), state: state, version: "1", time: Fixture.t0, stores: stores,
            standbyFor: standbyFor.map { try! AggregatorID($0) }, serving: standbyFor == nil ? nil : true)
        return Fixture.message(status.topic, status.encoded())
    }

    /// Every store's layout and count (store n holds (n * 7) % 31 devices; 111 has no count yet),
    /// the two aggregators and store 103's gateway's Last Will.
    static var chain: [MQTTMessage] {
        var messages: [MQTTMessage] = []
        for major in stores {
            messages.append(Fixture.message(.storeLayout(major), layout(major).encoded()))
            if major != 111 {
                let count = Occupancy(region: .store(major), name: "Store \(major)", count: Int(major) * 7 % 31, time: Fixture.t0)
                messages.append(Fixture.message(count.topic, count.encoded()))
            }
        }
        messages.append(aggregator("agg-a", stores: "101-115"))
        messages.append(aggregator("agg-b", stores: "116-130", state: .offline))
        let will = GatewayStatus(gateway: gateway(103, 2), state: .offline)
        messages.append(Fixture.message(.gatewayStatus(will.gateway), will.encoded()))
        return messages
    }

    @Test("a page at a time, searched and sorted, each store's health with the reason")
    func overview() async throws {
        try await RouterClient.with(Self.chain) { router in
            let (response, first) = try await router.get("/api/chain", as: ChainView.self)
            #expect(response.status == .ok && response.headers[.cacheControl] == "no-store")
            #expect(first.summary == .init(stores: 30, ok: 14, warning: 1, problem: 15, inside: Self.stores.filter { $0 != 111 }.reduce(0) { $0 + Int($1) * 7 % 31 }))
            #expect(first.matched == 30 && first.pages == 1 && first.stores.map(\.major) == Array(Self.stores))
            let store103 = try #require(first.stores.first { $0.major == 103 })
            #expect(store103.health == "warning" && store103.gatewaysOffline == 1 && store103.gateways == 2 && store103.aggregators == ["agg-a"])
            #expect(store103.problems == ["1 of 2 gateways offline: gw-103-2"])
            let store120 = try #require(first.stores.first { $0.major == 120 })
            #expect(store120.health == "problem" && store120.gatewaysUnknown == 2 && store120.problems == ["no aggregator online serves it (agg-b offline): nothing is decided there"])

            let byHealth = try await router.get("/api/chain?sort=health&per_page=16", as: ChainView.self).value
            #expect(byHealth.stores.map(\.major) == Array(116...130) + [103] && byHealth.pages == 2)
            let byOccupancy = try await router.get("/api/chain?sort=occupancy", as: ChainView.self).value.stores
            #expect(zip(byOccupancy, byOccupancy.dropFirst()).allSatisfy { ($0.count ?? -1) >= ($1.count ?? -1) })
            #expect(byOccupancy.last?.major == 111, "a store without a count comes last")
            let reversed = try await router.get("/api/chain?sort=name&order=reverse&per_page=1", as: ChainView.self).value
            #expect(reversed.stores.map(\.major) == [130] && reversed.reversed)

            let ranges = try await router.get("/api/chain?q=110-112,125", as: ChainView.self).value
            #expect(ranges.stores.map(\.major) == [110, 111, 112, 125] && ranges.matched == 4 && ranges.query == "110-112,125")
            for typed in ["110%20-%20112,%20125", "110-112%20125"] {
                #expect(try await router.get("/api/chain?q=\(typed)", as: ChainView.self).value.stores.map(\.major) == [110, 111, 112, 125], "\(typed)")
            }
            let words = try await router.get("/api/chain?q=ecully%20grand", as: ChainView.self).value
            #expect(words.stores.map(\.major) == [107], "case and accents aside, every word")
            let paged = try await router.get("/api/chain?per_page=12&page=3", as: ChainView.self).value
            #expect(paged.stores.map(\.major) == Array(125...130) && paged.pages == 3)
            #expect(try await router.get("/api/chain?page=9", as: ChainView.self).value.stores.isEmpty)
        }
    }

    @Test("a malformed query is a 400 that names the parameter and what it takes")
    func badQueries() async throws {
        try await RouterClient.with(Self.chain) { router in
            for (query, words) in [
                ("sort=size", "sort size is not one of major, name, occupancy, health"), ("order=up", "order up is not natural"),
                ("page=0", "page 0 is not a whole number from 1"), ("per_page=501", "per_page 501 is not a whole number from 1 to 500"),
                ("page=two", "page two is not"),
            ] {
                let (response, body) = try await router.get("/api/chain?\(query)", as: RouterClient.ErrorBody.self)
                #expect(response.status == .badRequest && body.error.message.hasPrefix(words), "\(query): \(body.error.message)")
            }
            let (response, body) = try await router.get("/api/health/problems?per_page=x", as: RouterClient.ErrorBody.self)
            #expect(response.status == .badRequest && body.error.message.hasPrefix("per_page x is not"))
            let (health, reason) = try await router.get("/api/health?gateways=some", as: RouterClient.ErrorBody.self)
            #expect(health.status == .badRequest && reason.error.message == "gateways some is not all or not-online")
            let notOnline = try await router.get("/api/health?gateways=not-online", as: HealthView.self).value.gateways
            #expect(notOnline.map(\.id) == ["gw-103-2"] + (116...130).flatMap { ["gw-\($0)-1", "gw-\($0)-2"] }, "the Last Will and the unknown")
        }
    }

    @Test("what is wrong, problems first; a standby serving turns the lost primary into a warning")
    func problems() async throws {
        let (before, after) = try await RouterClient.with(Self.chain, adjust: { $0.chainSnapshotLifetime = .zero }) { router in
            let before = try await router.get("/api/health/problems", as: ProblemsView.self).value
            router.store.receive(Self.aggregator("agg-b2", stores: "116-130", standbyFor: "agg-b"))
            return (before, try await router.get("/api/health/problems", as: ProblemsView.self).value)
        }
        #expect(before.items.map { "\($0.severity) \($0.kind) \($0.subject) \($0.stores ?? "")" } == [
            "problem broker the dashboard's broker link ", "problem aggregator agg-b 116-130", "problem stores 15 stores 116-130",
            "warning store 103 Store 103 103",
        ])
        #expect(before.problems == 3 && before.warnings == 1 && before.aggregatorsOnline == 1 && before.gatewaysOffline == 1 && before.gatewaysUnknown == 30)
        #expect(after.items.map { "\($0.severity) \($0.kind) \($0.subject)" } == [
            "problem broker the dashboard's broker link", "warning aggregator agg-b", "warning aggregator agg-b2", "warning store 103 Store 103",
        ])
        #expect(after.items[1].detail == "offline (its Last Will or a shutdown); its standby agg-b2 serves its stores")
        #expect(after.summary.problem == 0 && after.summary.warning == 16, "116–130 are served by the standby: a warning each")
    }

    @Test("pages asking within the snapshot's lifetime share one judgement of the chain; after it, a new one")
    func sharedSnapshot() async throws {
        let count = Occupancy(region: .store(101), name: "Store 101", count: 99, time: Fixture.t0 + 1)
        for (lifetime, expected) in [(Duration.seconds(3600), 25), (.zero, 99)] {
            let seen = try await RouterClient.with(Self.chain, adjust: { $0.chainSnapshotLifetime = lifetime }) { router in
                _ = try await router.get("/api/chain?per_page=1", as: ChainView.self)
                router.store.receive(Fixture.message(count.topic, count.encoded()))
                return try await router.get("/api/chain?per_page=1", as: ChainView.self).value.stores[0].count
            }
            #expect(seen == expected, "lifetime \(lifetime)")
        }
    }

    @Test("a login limited to some stores sees only theirs, and only their problems")
    func scope() throws {
        var state = LiveState(scheme: .standard, limits: .init(devices: 10, events: 10, gateways: 1000, aggregators: 10), now: 0)
        // Besides the chain's two, an offline aggregator owning stores in and out of the login's.
        for message in Self.chain + [Self.aggregator("agg-wide", stores: "101-130", state: .offline)] {
            _ = state.apply(topic: message.topic, payload: message.payload, at: Fixture.t0)
        }
        let viewer = Viewer(login: .user("lyon"), scope: .stores([101...105]))
        let health = state.healthView(now: Fixture.t0, staleAfter: 30_000, server: Fixture.server)
        let snapshot = ChainSnapshot(health: health, stores: state.judgedStores(health: health), made: .now)
        let view = snapshot.chainView(ChainQuery(), viewer: viewer)
        #expect(view.stores.map(\.major) == Array(101...105) && view.summary.stores == 5 && view.viewer.stores == "101-105")
        let problems = snapshot.problemsView(page: 1, perPage: 50, viewer: viewer, now: Fixture.t0)
        #expect(problems.items.map { "\($0.kind) \($0.subject) \($0.stores ?? "")" } == [
            "broker the dashboard's broker link ", "aggregator agg-wide 101-130", "store 103 Store 103 103",
        ], "agg-wide is seen (it owns some of the login's stores); agg-b, owning none of them, is not")
        #expect(problems.aggregators == 2 && problems.summary.stores == 5)
    }
}
