import Testing
import BeaconCore
import BeaconEngine
@testable import BeaconSim

/// The simulated calibration walk: the route docs/CALIBRATION.md asks a person to walk, the truth
/// that person would write, a tag as loud as asked, and the shoppers of the same seed beside it.
@Suite("Simulator: calibration walk", .serialized)
struct CalibrationWalkTests {
    static func chain() throws -> Chain { try DefaultChain.config().resolve() }

    /// A walk through store 101 (with `tune` applied), run to its end: every batch and every truth
    /// change, and the schedule.
    static func walk(shoppers: Bool = false, seed: UInt64 = 1, _ tune: (inout CalibrationWalk) -> Void = { _ in })
        throws -> (batches: [SimulatedBatch], truth: [TruthChange], schedule: WalkSchedule) {
        var config = SimulationConfig()
        config.seed = seed
        config.shoppers = shoppers
        var simulation = try Simulation(chain: try chain(), config: config)
        var walk = CalibrationWalk(stores: [101])
        tune(&walk)
        let schedule = try simulation.schedule(walk)
        var batches: [SimulatedBatch] = [], truth: [TruthChange] = []
        while simulation.now < schedule.end + 5_000 {
            let window = simulation.nextWindow()
            batches += window.batches
            truth += window.truth
        }
        return (batches, truth, schedule)
    }

    /// The spans of `device`'s truth: each place and how long it lasted, ms.
    static func spans(_ truth: [TruthChange], _ device: DeviceID, end: Int64) -> [(place: TruthPlace, length: Int64)] {
        let own = truth.filter { $0.device == device }
        return zip(own, own.dropFirst().map(\.time) + [end]).map { ($0.0.place, $0.1 - $0.0.time) }
    }

    @Test("the tag goes through every section twice, a minute each, the second round in another order, and out of the door twice")
    func route() throws {
        let (_, truth, schedule) = try Self.walk()
        let spans = Self.spans(truth, schedule.device, end: schedule.end)
        let visits = spans.filter { $0.length >= 58_000 }.map(\.place)
        let sections = visits.compactMap(\.section)
        for minor in 1...6 {
            #expect(sections.filter { $0 == minor }.count == 2, "section \(minor): \(sections)")
        }
        #expect(Array(sections.prefix(6)) != Array(sections.suffix(6)), "\(sections)")
        // Two stays outside that end by coming back in, then the walk out and away.
        let outside = spans.indices.filter { spans[$0].place == .outside && spans[$0].length >= 58_000 && $0 + 1 < spans.count }
        #expect(outside.count == 2, "\(spans)")
        #expect(spans.last?.place == .outside && spans.allSatisfy { $0.place == .outside || $0.place.store == 101 })
        #expect(schedule.visits.count == 1 && schedule.end - schedule.start > 14 * 60_000)
    }

    @Test("the truth is outside from the start and leaves a few seconds unscored either side of each crossing")
    func truthMargins() throws {
        let (_, truth, schedule) = try Self.walk()
        let crossings = truth.filter { $0.device == schedule.device }
        let lines = WalkTruth.lines(device: schedule.device, start: schedule.start, changes: truth)
        #expect(lines.first == TruthChange(time: schedule.start, device: schedule.device, place: .outside))
        #expect(zip(lines, lines.dropFirst()).allSatisfy { $0.time < $1.time && $0.place != $1.place })
        for crossing in crossings {
            #expect(lines.contains(TruthChange(time: crossing.time - WalkTruth.margin, device: schedule.device, place: .unscored)))
            #expect(!lines.contains { abs($0.time - crossing.time) < WalkTruth.margin })
        }
        let exact = WalkTruth.lines(device: schedule.device, start: schedule.start, changes: truth, margin: 0)
        #expect(Array(exact.dropFirst()) == crossings)
    }

    @Test("a place left again within the margins stays unscored; so does a crossing right after setting off")
    func shortVisit() throws {
        let tag = try DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-1")
        let changes = [
            TruthChange(time: 20_000, device: tag, store: 1, section: 1),
            TruthChange(time: 24_000, device: tag, store: 1, section: 2),
            TruthChange(time: 60_000, device: tag, store: 1, section: 3),
        ]
        let lines = WalkTruth.lines(device: tag, start: 18_500, changes: changes)
        #expect(lines.map(\.place) == [.unscored, .inside(store: 1, section: 2), .unscored, .inside(store: 1, section: 3)], "\(lines)")
        #expect(lines.map(\.time) == [17_000, 27_000, 57_000, 63_000], "\(lines)")
    }

    @Test("the tag's id is no shopper's, and --tag-offset makes every reading of it that much louder")
    func tagLevel() throws {
        let plain = try Self.walk()
        let louder = try Self.walk { $0.tagOffset = 6 }
        #expect(plain.schedule.device.rawValue.hasSuffix("-1-1") && louder.schedule.device == plain.schedule.device)
        func readings(_ batches: [SimulatedBatch]) -> [String: Int] {
            var out: [String: Int] = [:]
            for b in batches { for s in b.sightings { out["\(b.gateway) \(s.time)"] = s.rssi } }
            return out
        }
        let before = readings(plain.batches), after = readings(louder.batches)
        #expect(before.count > 2000, "\(before.count) readings of the tag")
        let both = before.keys.filter { after[$0] != nil && (-126...13).contains(before[$0]!) }
        #expect(both.count > before.count * 9 / 10)
        #expect(both.allSatisfy { after[$0]! - before[$0]! == 6 })
    }

    @Test("with shoppers, the trace is beacon-sim run's of the same seed plus the tag, and the tag walks as it does alone")
    func amongShoppers() throws {
        let among = try Self.walk(shoppers: true, seed: 5)
        let alone = try Self.walk(shoppers: false, seed: 5)
        var config = SimulationConfig()
        config.seed = 5
        var run = try Simulation(chain: try Self.chain(), config: config)
        let tag = among.schedule.device
        func key(_ b: SimulatedBatch, _ s: Observation) -> String { "\(b.gateway) \(b.seq) \(s.device) \(s.time) \(s.rssi)" }
        var shoppers: [String] = [], runTruth: [TruthChange] = []
        for _ in 0..<600 {
            let window = run.nextWindow()
            shoppers += window.batches.flatMap { b in b.sightings.map { key(b, $0) } }.sorted()
            runTruth += window.truth
        }
        let windows = Array(among.batches.prefix(600 * (try Self.chain()).gateways.count))
        let others = windows.flatMap { b in b.sightings.filter { $0.device != tag }.map { key(b, $0) } }
        #expect(others.sorted() == shoppers.sorted() && shoppers.count > 100_000)
        #expect(among.truth.filter { $0.device != tag && $0.time <= run.now } == runTruth)
        let tagAmong = among.batches.flatMap { b in b.sightings.filter { $0.device == tag }.map { key(b, $0) } }
        let tagAlone = alone.batches.flatMap { b in b.sightings.map { key(b, $0) } }
        #expect(tagAmong.sorted() == tagAlone.sorted())
    }

    @Test("a store the chain does not have is refused by number")
    func unknownStore() throws {
        var simulation = try Simulation(chain: try Self.chain(), config: SimulationConfig())
        #expect { _ = try simulation.schedule(CalibrationWalk(stores: [101, 999])) } throws: {
            "\($0)".contains("store 999 is not in the chain") && "\($0)".contains("101, 102, 103")
        }
    }
}
