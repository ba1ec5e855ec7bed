import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// What the engine puts out: the same for the same input, occupancy counts, states restored
/// across a restart.
@Suite("Engine: determinism, occupancy and restore")
struct EngineOutputTests {
    let t0: Int64 = 1_790_000_000_000

    @Test("the same input gives the same output", arguments: Tuning.Rule.allCases)
    func deterministic(_ rule: Tuning.Rule) throws {
        func run() throws -> [EngineOutput] {
            var d = Driver(try Fixture.engine { $0.rule = rule })
            d.hear(Fixture.phone, ["gw-a": -60, "gw-b": -70], from: t0, to: t0 + 8000)
            d.hear(Fixture.tag, ["gw-c": -55], from: t0 + 2000, to: t0 + 9000)
            d.hear(Fixture.phone, ["gw-a": -75, "gw-b": -58], from: t0 + 8000, to: t0 + 15000)
            d.silence(from: t0 + 15000, to: t0 + 60000)
            return d.outputs
        }
        let first = try run()
        #expect(first.count > 10)
        #expect(try run() == first)
    }

    @Test("occupancy follows entries and exits, at most once a second per topic")
    func occupancy() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        d.hear(Fixture.tag, ["gw-a": -60], from: t0 + 5000, to: t0 + 8000)
        let counts = d.outputs.compactMap { o -> OccupancyCount? in if case .occupancy(let c) = o { return c } else { return nil } }
        let store = counts.filter { $0.section == nil }
        #expect(store.last?.count == 2)
        #expect(store.map(\.count) == [1, 2])
        // Stamped no earlier than the enter that changed it (the watermark lags by lateness_s).
        let enters = d.transitionEvents.filter { $0.kind == .enter && $0.section == nil }.map(\.time)
        #expect(zip(store, enters).allSatisfy { $0.time >= $1 }, "\(store.map(\.time)) against enters at \(enters)")
        d.silence(from: t0 + 8000, to: t0 + 50000)
        let last = d.outputs.compactMap { o -> OccupancyCount? in if case .occupancy(let c) = o, c.section == nil { return c } else { return nil } }.last
        #expect(last?.count == 0)
    }

    @Test("a restart restores who is inside and invents no enter event", arguments: [Tuning.Rule.hysteresis, .hmm])
    func restore(_ rule: Tuning.Rule) throws {
        var d = Driver(try Fixture.engine { $0.rule = rule })
        d.engine.restore([RestoredState(device: Fixture.phone, state: .inside, store: 1, section: 10, since: t0 - 60000, lastSeen: t0 - 1000, sequence: 41)])
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 10000)
        #expect(d.transitions.isEmpty)
        d.hear(Fixture.phone, ["gw-b": -55, "gw-a": -75], from: t0 + 10000, to: t0 + 16000)
        #expect(d.transitions == ["exit 1/10", "enter 1/20 from 10"])
        #expect(d.transitionEvents.first?.sequence == 42)
    }
}

/// What an event says about where the device is: its confidence and proximity, its dwell.
@Suite("Engine: event quality")
struct EngineQualityTests {
    @Test("events at a section change describe the new section, with its confidence", arguments: [Tuning.Rule.hysteresis, .hmm])
    func confidenceOfNewSection(_ rule: Tuning.Rule) throws {
        let t0: Int64 = 1_790_000_000_000
        var d = Driver(try Fixture.engine { $0.rule = rule; $0.dwellSeconds = 1 })
        d.hear(Fixture.phone, ["gw-a": -55, "gw-b": -80], from: t0, to: t0 + 5000)
        d.clear()
        d.hear(Fixture.phone, ["gw-a": -80, "gw-b": -55], from: t0 + 5000, to: t0 + 15000)
        let enter = try #require(d.transitionEvents.first { $0.kind == .enter })
        #expect(enter.confidence > 0.5, "the new section leads clearly: confidence \(enter.confidence)")
        #expect(enter.proximity != .unknown && enter.accuracy != nil)
    }

    @Test("a store enter event carries the confidence of the section it lands in")
    func storeEnterConfidence() throws {
        let t0: Int64 = 1_790_000_000_000
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -55, "gw-b": -80], from: t0, to: t0 + 3000)
        let enter = try #require(d.transitionEvents.first)
        // A clear lead: the top of what the lead publishes (a P of 0.99 and more).
        #expect(enter.section == nil && enter.confidence >= SectionEvidence.publishedLead(0.99))
    }

    @Test("interleaved batches never date a decision backwards: no negative dwell", arguments: Tuning.Rule.allCases)
    func noNegativeDwell(_ rule: Tuning.Rule) throws {
        let t0: Int64 = 1_790_000_000_000
        var d = Driver(try Fixture.engine { $0.rule = rule; $0.dwellSeconds = 0 })
        // gw-a's batches run a second ahead of gw-b's, and the lead flips at every report.
        for second in 0..<30 {
            let s = t0 + Int64(second) * 1000
            d.batch("gw-a", sent: s + 1000, (0..<4).map { (Fixture.phone, s + Int64($0) * 250, $0 % 2 == 0 ? -60 : -75) })
            d.batch("gw-b", sent: s, (0..<4).map { (Fixture.phone, s - 1000 + Int64($0) * 250 + 125, $0 % 2 == 0 ? -75 : -58) })
        }
        #expect(d.transitionEvents.count >= 2)
        for e in d.transitionEvents {
            #expect((e.dwell ?? 0) >= 0, "\(e.kind) \(e.section.map(String.init) ?? "store") dwell \(e.dwell ?? 0)")
        }
        let times = d.transitionEvents.map(\.time)
        #expect(times == times.sorted(), "decisions must not go back in time")
    }
}
