import BeaconCore
@testable import BeaconDashboard
import BeaconWire
import Testing

/// The pieces of the login and the limits, as values: store scopes, the users file, the health
/// stream's changes, and the state's caps on gateways and aggregators.
@Suite("Dashboard access and limits")
struct DashboardAccessTests {
    static let hash = "$2b$04$" + String(repeating: "a", count: 53)

    @Test("store scopes: all, lists and ranges, merged; anything else refused", arguments: [
        ("all", "all"), ("101", "101"), ("103-110,101", "101,103-110"), ("101,102,103", "101-103"), ("5-9,7-12", "5-12"),
    ])
    func scopes(_ text: String, _ normalised: String) throws {
        #expect(try #require(StoreScope(parsing: text)).description == normalised)
    }

    @Test("a scope admits its stores and overlaps an aggregator's that shares one")
    func admits() throws {
        let scope = try #require(StoreScope(parsing: "101,103-110"))
        #expect(scope.admits(101) && scope.admits(105) && !scope.admits(102) && StoreScope.chain.admits(9))
        #expect(scope.overlaps(StoreScope(aggregatorStores: "1-101")) && !scope.overlaps(StoreScope(aggregatorStores: "111-200")))
        #expect(scope.overlaps(StoreScope(aggregatorStores: nil)))
        for bad in ["", "a", "101,", "110-101", "0101", "70000", "1--2", "ALL"] { #expect(StoreScope(parsing: bad) == nil, "\(bad)") }
    }

    @Test("the users file: comments, CRLF; each problem names the file and line")
    func usersFile() throws {
        let users = try DashboardUsers(contents: "# users\r\nana:all:\(Self.hash)\r\n\r\nbob:102:\(Self.hash)\n", path: "u")
        #expect(users.count == 2 && users.user("bob")?.scope == .stores([102...102]) && users.user("carl") == nil)
        let problems: [(String, String)] = [
            ("ana:all", "u:1: not NAME:STORES:HASH"),
            ("an a:all:\(Self.hash)", "u:1: the name is not"),
            ("ana:1-x:\(Self.hash)", #"u:1: ana's stores "1-x" are not"#),
            ("ana:all:plain-text", "u:1: ana's password is not a bcrypt hash"),
            ("ana:all:\(Self.hash)\nana:101:\(Self.hash)", "u:2: ana is listed twice"),
            ("# nobody\n", "u: no user in it"),
        ]
        for (contents, expected) in problems {
            #expect(throws: DashboardUsersError.self) { try DashboardUsers(contents: contents, path: "u") }
            do {
                _ = try DashboardUsers(contents: contents, path: "u")
            } catch {
                #expect(error.description.hasPrefix(expected), "\(error)")
            }
        }
    }

    @Test("the health stream sends changed and removed rows only, and says reload past its limit")
    func healthFeed() throws {
        var state = LiveState(scheme: .standard, limits: .init(devices: 10, events: 10, gateways: 10, aggregators: 10), now: 0)
        var feed = HealthFeed(reloadBeyond: 3)
        _ = state.apply(topic: "beaconnet/stores/101/layout", payload: Fixture.layout.encoded(), at: 1)
        var status = Fixture.aggregator()
        _ = state.apply(topic: TopicScheme.standard.string(for: status.topic), payload: status.encoded(), at: 1)
        guard case .changes(let first) = feed.update(to: state.healthView(now: Fixture.t0, staleAfter: 30_000, server: Fixture.server)) else {
            Issue.record("the first view is all changes")
            return
        }
        #expect(first.aggregators.map(\.id) == ["agg-1"] && first.gateways.map(\.id) == ["gw-101-1a"])
        #expect(feed.update(to: state.healthView(now: Fixture.t0 + 1000, staleAfter: 30_000, server: Fixture.server)) == nil,
                "an older status alone is no change")
        status.counters.loss = [:]
        _ = state.apply(topic: TopicScheme.standard.string(for: status.topic), payload: status.encoded(), at: 2)
        guard case .changes(let second) = feed.update(to: state.healthView(now: Fixture.t0 + 2000, staleAfter: 30_000, server: Fixture.server)) else {
            Issue.record("a new loss count is a change")
            return
        }
        #expect(second.aggregators.map(\.lostBatches) == [0] && second.gateways.map(\.lostBatches) == [0])
        _ = state.apply(topic: TopicScheme.standard.string(for: status.topic), payload: [], at: 3)
        guard case .changes(let third) = feed.update(to: state.healthView(now: Fixture.t0 + 3000, staleAfter: 30_000, server: Fixture.server)) else {
            Issue.record("a cleared status is a change")
            return
        }
        #expect(third.removedAggregators.map(\.id) == ["agg-1"] && third.visible(to: .chain).removedAggregators == ["agg-1"])
        #expect(third.visible(to: .stores([102...102])).gateways.isEmpty, "gw-101-1a is store 101's")
        for n in 1...4 {
            let gateway = try GatewayID("gw-x-\(n)")
            _ = state.apply(topic: "beaconnet/gateways/\(gateway)/status", payload: GatewayStatus(gateway: gateway, state: .online, time: Fixture.t0).encoded(), at: 4)
        }
        #expect(feed.update(to: state.healthView(now: Fixture.t0 + 4000, staleAfter: 30_000, server: Fixture.server)) == .reload)
    }

    @Test("gateway and aggregator statuses past the limits are counted, not kept")
    func caps() throws {
        var state = LiveState(scheme: .standard, limits: .init(devices: 10, events: 10, gateways: 2, aggregators: 1), now: 0)
        for n in 1...5 {
            let gateway = try GatewayID("gw-x-\(n)")
            _ = state.apply(topic: "beaconnet/gateways/\(gateway)/status", payload: GatewayStatus(gateway: gateway, state: .online, time: Fixture.t0).encoded(), at: 1)
        }
        for id in ["agg-1", "agg-2"] {
            let status = AggregatorStatus(aggregator: try AggregatorID(id), state: .online, version: "1", time: Fixture.t0)
            _ = state.apply(topic: "beaconnet/aggregators/\(id)/status", payload: status.encoded(), at: 1)
        }
        let health = state.healthView(now: Fixture.t0, staleAfter: 30_000, server: Fixture.server)
        #expect(health.gateways.count == 2 && health.gatewayStatusesDropped == 3)
        #expect(health.aggregators.map(\.id) == ["agg-1"] && health.aggregatorStatusesDropped == 1)
    }
}
