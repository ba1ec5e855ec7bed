import BeaconCore
@testable import BeaconDashboard
import BeaconWire
import Foundation
import Testing

/// What the dashboard makes of the messages it reads, without a broker: each retained topic's
/// last value, the event feed, and the API's views of them.
@Suite("Dashboard live state")
struct LiveStateTests {
    static let scheme = Fixture.scheme
    static let t0 = Fixture.t0
    static let layout = Fixture.layout

    static func fresh() -> LiveState {
        LiveState(scheme: scheme, limits: .init(devices: 2, events: 3, gateways: 2, aggregators: 1), now: 1000)
    }

    static func apply(_ state: inout LiveState, _ topic: Topic, _ payload: [UInt8]) -> LiveUpdate? {
        state.apply(topic: scheme.string(for: topic), payload: payload, at: 2000)
    }

    static func event(_ n: Int, store: StoreNumber = 101) -> RegionEvent { Fixture.event(n, store: store) }

    @Test("a store's plan and counts make its view; unknown stores have none")
    func storeView() throws {
        var state = Self.fresh()
        #expect(Self.apply(&state, .storeLayout(101), Self.layout.encoded()) == .layout(101))
        let count = Occupancy(region: .section(SectionRef(store: 101, section: 2)), name: "Grocery", count: 4, time: 1_732_350_001_000)
        #expect(Self.apply(&state, count.topic, count.encoded()) == .occupancy(count))
        _ = Self.apply(&state, .occupancy(.store(101)), Occupancy(region: .store(101), count: 4, time: 1_732_350_001_000).encoded())
        let view = try #require(state.storeView(101))
        #expect(view.name == "Lyon Part-Dieu" && view.hasLayout && view.count == 4)
        #expect(view.sections.map(\.count) == [nil, 4])
        #expect(view.sections[0].polygon == [[0, 0], [10, 0], [10, 8]] && view.sections[0].streetDoor)
        #expect(view.sections.map(\.floor) == [nil, 1], "a floor as the layout says it, absent when 0")
        #expect(view.gateways.map(\.id) == ["gw-101-1a"])
        #expect(state.storeView(999) == nil)
        #expect(state.storesView(for: Fixture.everyone).stores.map(\.major) == [101])
    }

    @Test("a store known only by its counts is listed, without a plan")
    func countsOnly() throws {
        var state = Self.fresh()
        let count = Occupancy(region: .section(SectionRef(store: 7, section: 3)), name: "Shoes", count: 2, time: 1_732_350_001_000)
        _ = Self.apply(&state, count.topic, count.encoded())
        let view = try #require(state.storeView(7))
        #expect(!view.hasLayout && view.name == "store 7" && view.sections.map(\.name) == ["Shoes"])
    }

    @Test("the feed keeps the newest events by event time, newest first, whatever order they arrive in")
    func feed() {
        var state = Self.fresh()
        for n in [2, 1, 5, 3, 4] { _ = Self.apply(&state, .event(Self.event(n).region, .enter), Self.event(n).encoded()) }
        #expect(state.eventsView(.chain).map(\.seq) == [5, 4, 3])
    }

    @Test("device states are kept up to the limit, and cleared by an empty retained message")
    func devices() throws {
        var state = Self.fresh()
        let ids = try ["mac-00:00:00:00:00:01", "mac-00:00:00:00:00:02", "mac-00:00:00:00:00:03"].map { try DeviceID($0) }
        for id in ids {
            let device = DeviceState(
                device: id, presence: .inside, uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", region: .store(101),
                since: 1_732_350_000_000, lastSeen: 1_732_350_000_000, proximity: .far, confidence: 0.5, sequence: 1)
            _ = Self.apply(&state, .deviceState(id), device.encoded())
        }
        #expect(state.deviceView(ids[0], .chain)?.state == "inside")
        #expect(state.deviceView(ids[2], .chain) == nil && state.devicesNotKept == 1)
        _ = Self.apply(&state, .deviceState(ids[0]), [])
        #expect(state.deviceView(ids[0], .chain) == nil)
    }

    @Test("an unreadable message or a payload for another store is counted and described, not kept")
    func badInput() {
        var state = Self.fresh()
        #expect(state.apply(topic: "beaconnet/occupancy/101", payload: Array("{not json".utf8), at: 5) == nil)
        var other = Self.layout
        other.store = 102
        #expect(Self.apply(&state, .storeLayout(101), other.encoded()) == nil)
        #expect(state.apply(topic: "elsewhere/x", payload: [1], at: 6) == nil)
        #expect(state.undecodable == 3 && state.layouts.isEmpty)
        #expect(state.healthView(now: 10, staleAfter: 30_000, server: Fixture.server).lastProblem?.hasPrefix("elsewhere/x: ") == true)
    }

    /// A state is kept under its topic and shown as its payload, a status likewise: a payload that
    /// names another device, gateway, aggregator or region than its topic is refused, counted and
    /// described, so that nothing is kept as one and shown as another.
    @Test("a payload that names another device, gateway, aggregator or region than its topic is refused")
    func topicAndPayloadAgree() throws {
        var state = Self.fresh()
        let a = try DeviceID("mac-00:00:00:00:00:0A"), b = try DeviceID("mac-00:00:00:00:00:0B")
        #expect(Self.apply(&state, .deviceState(a), Fixture.state(b).encoded()) == nil)
        #expect(state.devices.isEmpty && state.deviceView(a, .chain) == nil && state.deviceView(b, .chain) == nil)
        #expect(state.lastProblem?.detail == "dev \(b) does not match the topic's \(a)")
        #expect(Self.apply(&state, .deviceState(b), Fixture.state(b).encoded()) == .device)

        var gatewayStatus = GatewayStatus(gateway: try GatewayID("gw-101-1a"), state: .online)
        gatewayStatus.time = Self.t0
        #expect(Self.apply(&state, .gatewayStatus(try GatewayID("gw-101-9z")), gatewayStatus.encoded()) == nil)
        #expect(Self.apply(&state, .aggregatorStatus(try AggregatorID("agg-2")), Fixture.aggregator().encoded()) == nil)
        let event = Self.event(1)
        #expect(Self.apply(&state, .event(.section(SectionRef(store: 102, section: 2)), .enter), event.encoded()) == nil)
        #expect(Self.apply(&state, .event(event.region, .exit), event.encoded()) == nil)
        #expect(state.gateways.isEmpty && state.aggregators.isEmpty && state.events.isEmpty)
        #expect(state.undecodable == 5)
        #expect(Self.apply(&state, .event(event.region, .enter), event.encoded()) == .event(event))
    }

    @Test("health: stale and offline aggregators, gateways judged by the aggregator that watches their store")
    func health() throws {
        var state = Self.fresh()
        _ = Self.apply(&state, .storeLayout(101), Self.layout.encoded())
        let gateway = try GatewayID("gw-101-1a")
        var status = AggregatorStatus(aggregator: try AggregatorID("agg-1"), state: .online, version: "0.1.0", time: Self.t0)
        status.counters = .init(loss: [gateway: 3], lagMilliseconds: 900)
        _ = Self.apply(&state, status.topic, status.encoded())
        var health = state.healthView(now: Self.t0 + 10_000, staleAfter: 30_000, server: Fixture.server)
        #expect(health.aggregators.map(\.state) == ["online"] && health.aggregators.first?.lagMs == 900)
        #expect(health.gateways.map(\.state) == ["online"] && health.gateways.first?.lostBatches == 3)
        #expect(state.healthView(now: Self.t0 + 40_001, staleAfter: 30_000, server: Fixture.server).aggregators.first?.state == "stale")
        status.counters.offline = [gateway: UInt64(Self.t0 - 1000)]
        _ = Self.apply(&state, status.topic, status.encoded())
        health = state.healthView(now: Self.t0 + 10_000, staleAfter: 30_000, server: Fixture.server)
        #expect(health.gateways.first?.state == "offline" && health.gateways.first?.lastBatch == UInt64(Self.t0 - 1000))
        status.state = .offline
        _ = Self.apply(&state, status.topic, status.encoded())
        health = state.healthView(now: Self.t0 + 10_000, staleAfter: 30_000, server: Fixture.server)
        #expect(health.aggregators.first?.state == "offline" && health.gateways.first?.state == "unknown")
        #expect(StoreScope(aggregatorStores: "1-99,101").admits(101) && !StoreScope(aggregatorStores: "1-99,102").admits(101) && StoreScope(aggregatorStores: nil).admits(5))
    }

    @Test("health: a standby standing by is shown as such and witnesses no gateway; serving, it does")
    func standby() throws {
        var state = Self.fresh()
        _ = Self.apply(&state, .storeLayout(101), Self.layout.encoded())
        var status = AggregatorStatus(aggregator: try AggregatorID("agg-1b"), state: .online, version: "0.1.0", time: Self.t0,
                                      standbyFor: try AggregatorID("agg-1"), serving: false)
        _ = Self.apply(&state, status.topic, status.encoded())
        var health = state.healthView(now: Self.t0 + 1000, staleAfter: 30_000, server: Fixture.server)
        #expect(health.aggregators.map(\.state) == ["standby"] && health.aggregators.first?.standbyFor == "agg-1")
        #expect(health.gateways.map(\.state) == ["unknown"], "a standby standing by hears no gateway")
        status.serving = true
        _ = Self.apply(&state, status.topic, status.encoded())
        health = state.healthView(now: Self.t0 + 1000, staleAfter: 30_000, server: Fixture.server)
        #expect(health.aggregators.map(\.state) == ["online"] && health.gateways.map(\.state) == ["online"])
        #expect(try DashboardJSON.text(health).contains(#""standby_for":"agg-1""#))
    }

    @Test("API JSON is snake_case")
    func json() throws {
        let view = EventView(Self.event(1))
        let text = try DashboardJSON.text(view)
        #expect(text.contains(#""section_name":"Grocery""#) && text.contains(#""store_name":"Lyon Part-Dieu""#) && text.contains(#""seq":1"#))
    }
}
