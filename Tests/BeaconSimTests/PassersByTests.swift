import TestSupport
import Testing
import BeaconCore
import BeaconEngine
@testable import BeaconSim

@Suite("Passers-by at the window", .serialized, .cpuBound)
struct PassersByTests {
    /// Whether `device` is a passer-by's phone (their majors start at 3000).
    static func isPasserBy(_ device: DeviceID) -> Bool {
        device.description.split(separator: "-").dropLast().last.flatMap { Int($0) }.map { $0 >= 3000 } ?? false
    }

    @Test("passers-by stand outside the front, are heard there, never enter the truth, and walk on")
    func standOutside() throws {
        let chain = try DefaultChain.config().resolve()
        var config = SimulationConfig()
        config.shoppers = false
        config.windowShopperInterval = 10
        config.windowLingerSeconds = 20
        var simulation = try Simulation(chain: chain, config: config)
        var heard = Set<DeviceID>()
        var standing = 0
        var everyone = 0
        for window in 0..<600 {
            // Nobody new after 300 s: by the end everyone has walked on and gone.
            if window == 300 { simulation.nextPasserBy = nil }
            let (batches, truth) = simulation.nextWindow()
            #expect(truth.isEmpty)
            for b in batches { for s in b.sightings { heard.insert(s.device) } }
            for person in simulation.people {
                #expect(person.kind == .passerBy)
                guard case .gone = person.activity else {
                    #expect(simulation.plans[person.store].section(at: person.position, storey: person.storey) == nil)
                    if case .lingering = person.activity { standing += 1 }
                    continue
                }
            }
            everyone = simulation.people.count
        }
        // About 90 in 300 s over three stores; most are heard, and each stood a while.
        #expect(everyone > 50)
        #expect(heard.count > everyone / 2 && heard.allSatisfy(Self.isPasserBy))
        #expect(standing > everyone * 5)
        #expect(simulation.presentCount == 0)
    }

    @Test("shoppers who look first stand outside the front, outside in the truth, then come in")
    func lookFirst() throws {
        let chain = try DefaultChain.config().resolve()
        func run(share: Double) throws -> (lookedFirst: Int, arrived: Int, standing: Int, delays: [Double]) {
            var config = SimulationConfig()
            config.seed = 3
            config.windowFirstShare = share
            var simulation = try Simulation(chain: chain, config: config)
            let atStart = simulation.people.count
            var firstHeard: [DeviceID: Int64] = [:], entered: [DeviceID: Int64] = [:]
            var standing = 0
            for _ in 0..<300 {
                let (batches, truth) = simulation.nextWindow()
                for b in batches { for s in b.sightings where firstHeard[s.device] == nil { firstHeard[s.device] = s.time } }
                for c in truth where c.store != nil && entered[c.device] == nil { entered[c.device] = c.time }
                for (index, person) in simulation.people.enumerated().dropFirst(atStart) where !person.onward.isEmpty {
                    guard case .lingering = person.activity else { continue }
                    #expect(simulation.plans[person.store].section(at: person.position, storey: person.storey) == nil)
                    #expect(simulation.truth[index].store == nil)
                    standing += 1
                }
            }
            let arrivals = simulation.people[atStart...]
            let delays = arrivals.compactMap { p in entered[p.device].flatMap { e in firstHeard[p.device].map { Double(e - $0) / 1000 } } }
            return (arrivals.filter { $0.windowStay != nil }.count, arrivals.count, standing, delays.sorted())
        }
        let plain = try run(share: 0), looking = try run(share: 1)
        try #require(!plain.delays.isEmpty && !looking.delays.isEmpty)
        #expect(plain.lookedFirst == 0 && plain.standing == 0)
        #expect(looking.arrived > 20 && looking.lookedFirst == looking.arrived)
        #expect(looking.standing > looking.arrived * 5)
        // Heard along the street and at the window before they cross the door; most come in.
        let median = { (d: [Double]) in d[d.count / 2] }
        print("first heard to entering, median: \(median(plain.delays)) s; looking first \(median(looking.delays)) s, \(looking.delays.count) of \(looking.arrived) in")
        #expect(median(plain.delays) < 10 && median(looking.delays) > 20)
        #expect(looking.delays.count * 2 > looking.arrived)
    }

    @Test("with shoppers who look first, the others are those of the same seed without them")
    func othersUnchanged() throws {
        let chain = try DefaultChain.config().resolve()
        func run(share: Double) throws -> (sightings: [DeviceID: [String]], truth: [DeviceID: [String]], lookers: Set<DeviceID>) {
            var config = SimulationConfig()
            config.seed = 5
            config.windowFirstShare = share
            var simulation = try Simulation(chain: chain, config: config)
            var sightings: [DeviceID: [String]] = [:], truth: [DeviceID: [String]] = [:]
            for _ in 0..<120 {
                let (batches, changes) = simulation.nextWindow()
                for c in changes { truth[c.device, default: []].append("\(c)") }
                for b in batches { for s in b.sightings { sightings[s.device, default: []].append("\(b.gateway)@\(s.time):\(s.rssi)") } }
            }
            return (sightings, truth, Set(simulation.people.filter { $0.windowStay != nil }.map(\.device)))
        }
        let without = try run(share: 0), with = try run(share: 0.5)
        #expect(without.lookers.isEmpty && with.lookers.count >= 3)
        let others = Set(without.sightings.keys).subtracting(with.lookers)
        #expect(others.count > 20)
        for device in others {
            #expect(with.sightings[device]?.sorted() == without.sightings[device]?.sorted(), "\(device)")
            #expect(with.truth[device] == without.truth[device], "\(device)")
        }
        // Those who looked first were heard differently: from the street, at the window.
        #expect(with.lookers.contains { with.sightings[$0] != without.sightings[$0] })
    }

    @Test("with passers-by the shoppers are those of the same seed without them")
    func shoppersUnchanged() throws {
        let chain = try DefaultChain.config().resolve()
        func run(passersBy: Double?) throws -> (sightings: [String], truth: [String], passers: Int) {
            var config = SimulationConfig()
            config.seed = 5
            config.windowShopperInterval = passersBy
            var simulation = try Simulation(chain: chain, config: config)
            var sightings: [String] = [], truth: [String] = []
            var passers = 0
            for _ in 0..<120 {
                let (batches, changes) = simulation.nextWindow()
                truth += changes.map { "\($0)" }
                for b in batches {
                    for s in b.sightings {
                        if Self.isPasserBy(s.device) { passers += 1; continue }
                        sightings.append("\(b.gateway) \(s.device)@\(s.time):\(s.rssi)")
                    }
                }
            }
            return (sightings.sorted(), truth, passers)
        }
        let without = try run(passersBy: nil), with = try run(passersBy: 15)
        #expect(without.passers == 0 && with.passers > 100)
        #expect(with.sightings == without.sightings)
        #expect(with.truth == without.truth)
        #expect(without.sightings.count > 1000)
    }

    @Test("the tag's calibration takes passers-by in as the default does, and keeps them out where the store says passers_by")
    func calibratedTakesPassersByInUnlessTheStoreSays() throws {
        let simulated = SimulatedCalibration(siteSeed: 1)
        let calibration = try simulated.calibration()
        var saying = simulated.chain
        for s in saying.stores.indices { saying.stores[s].passersBy = true }
        var heard = 0, takenIn = 0, keptOut = 0
        for seed: UInt64 in [11, 12] {
            let plain = try Self.passersBy(chain: WalkCalibration.calibrated(simulated.chain, with: calibration), seed: seed)
            let said = try Self.passersBy(chain: WalkCalibration.calibrated(saying, with: calibration), seed: seed)
            print("passers-by of seed \(seed) taken in, calibrated: \(plain.takenIn) of \(plain.heard), where the stores say passers_by \(said.takenIn)")
            #expect(said.heard == plain.heard)
            heard += plain.heard
            takenIn += plain.takenIn
            keptOut += said.heard - said.takenIn
        }
        #expect(heard > 80)
        // The entry is the default's: nine in ten or more are taken in (the default takes all but
        // one of these: `storesKeepPassersByOut`).
        #expect(takenIn * 10 >= heard * 9, "\(takenIn) of \(heard) taken in")
        // The street test and the rule's consent together: at least half stay out. (The rule's
        // part alone: FingerprintOutsideTests.)
        #expect(keptOut * 2 >= heard, "\(keptOut) of \(heard) kept out")
    }

    @Test("stores that say passers-by stop at their window keep most of them out and still let the shoppers in")
    func storesKeepPassersByOut() throws {
        var config = DefaultChain.config()
        for s in config.stores.indices { config.stores[s].passersBy = true }
        var heard = 0, takenIn = 0, missed = 0, entries = 0
        for seed: UInt64 in [11, 12] {
            let on = try Self.passersBy(chain: config, seed: seed)
            let off = try Self.passersBy(chain: DefaultChain.config(), seed: seed)
            print("passers-by of seed \(seed) taken in: passers_by \(on.takenIn) of \(on.heard), without \(off.takenIn); shoppers' entries missed "
                + "\(on.report.missedEnters) of \(on.report.missedEnters + on.report.enterLatencies.count), section accuracy "
                + "\(off.report.sectionAccuracy) → \(on.report.sectionAccuracy)")
            #expect(on.heard == off.heard && on.takenIn * 2 <= off.takenIn)
            heard += on.heard
            takenIn += on.takenIn
            missed += on.report.missedEnters
            entries += on.report.missedEnters + on.report.enterLatencies.count
        }
        #expect(takenIn * 2 <= heard, "\(takenIn) of \(heard) taken in")
        // The shoppers are entered, if later: at most one in ten true entries missed.
        #expect(entries > 100 && missed * 10 <= entries, "\(missed) of \(entries) missed")
    }

    @Test("stores that say passers-by let in the shoppers who stood at the window first about as soon as the rest")
    func lookedFirstLetIn() throws {
        var config = DefaultChain.config()
        for s in config.stores.indices { config.stores[s].passersBy = true }
        let run = try Self.passersBy(chain: config, seed: 11, windowFirst: 1)
        let latencies = run.report.enterLatencies.sorted()
        try #require(!latencies.isEmpty)
        let median = Double(latencies[latencies.count / 2]) / 1000
        print("every arriving shopper looked first (seed 11): entered a median \(median) s after crossing the door, "
            + "\(run.report.missedEnters) of \(run.report.missedEnters + latencies.count) missed")
        // A judgement held at no bound keeps someone who stood at the window for a minute out for
        // about as long again once inside.
        #expect(latencies.count > 50 && median < 10)
        // Missed: entries not reported from 10 s before the crossing to 60 s after, most of them
        // reported at the window (11 of 103 as shipped, 16 without the bound).
        #expect(run.report.missedEnters * 5 <= run.report.missedEnters + latencies.count)
    }

    /// The passers-by of `seed` (one at each store's window every 30 s, for 600 s; `windowFirst`:
    /// the share of arriving shoppers who stand there first) that `chain`'s engine heard and
    /// reported entering a store.
    static func passersBy(chain: ChainConfig, seed: UInt64, windowFirst: Double = 0) throws -> (heard: Int, takenIn: Int, report: EvaluationReport) {
        let resolved = try chain.resolve()
        var config = SimulationConfig()
        config.seed = seed
        config.siteSeed = 1
        config.windowShopperInterval = 30
        config.windowFirstShare = windowFirst
        var simulation = try Simulation(chain: resolved, config: config)
        var engine = AggregationEngine(chain: resolved)
        var out: [EngineOutput] = []
        var heard = Set<DeviceID>()
        var truth: [TruthChange] = []
        for _ in 0..<Int(config.duration / config.batchWindow) {
            let (batches, changes) = simulation.nextWindow()
            truth += changes
            for b in batches {
                for s in b.sightings where isPasserBy(s.device) { heard.insert(s.device) }
                engine.ingest(gateway: b.gateway, seq: b.seq, sent: b.sent, observations: b.sightings, into: &out)
            }
        }
        engine.advance(to: simulation.now + 5_000, into: &out)
        let reported = InProcessRun.reported(out, chain: resolved)
        let entered = reported.filter { $0.kind == .enter && $0.section == nil && isPasserBy($0.device) }
        return (heard.count, Set(entered.map(\.device)).count, Evaluator.evaluate(truth: truth, reported: reported, end: simulation.now))
    }
}
