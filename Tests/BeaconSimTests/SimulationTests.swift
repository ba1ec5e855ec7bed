import TestSupport
import Testing
import BeaconCore
import BeaconEngine
@testable import BeaconSim

// Serialized: the accuracy runs are seconds of synchronous CPU each; run in parallel on two cores
// they would starve every other suite's tasks.
@Suite("Simulator", .serialized, .cpuBound)
struct SimulationTests {
    @Test("the default chain is 3 stores × 6 sections × 2–3 gateways and validates")
    func defaultChain() throws {
        let chain = try DefaultChain.config().resolve()
        #expect(chain.stores.count == 3 && chain.sections.count == 18)
        #expect(chain.sections.allSatisfy { (2...3).contains($0.gateways.count) })
    }

    @Test("a chain with N gateways per section puts N inside every section, on distinct spots", arguments: [1, 4, 5, 6, 9])
    func denserChain(_ n: Int) throws {
        let config = DefaultChain.config(gatewaysPerSection: n)
        let chain = try config.resolve()
        #expect(chain.sections.allSatisfy { $0.gateways.count == n })
        for store in config.stores {
            for section in store.sections {
                let polygon = try #require(section.polygon)
                let xs = polygon.map { $0[0] }, ys = polygon.map { $0[1] }
                let spots = config.gateways.filter { $0.store == store.major && $0.section == section.minor }.compactMap(\.position)
                #expect(spots.count == n)
                #expect(spots.allSatisfy { $0[0] > xs.min()! && $0[0] < xs.max()! && $0[1] > ys.min()! && $0[1] < ys.max()! })
                #expect(Set(spots.map { "\($0[0]),\($0[1])" }).count == n)
            }
        }
    }

    @Test("the same seed gives the same run; another seed another")
    func deterministic() throws {
        let chain = try DefaultChain.config().resolve()
        func run(_ seed: UInt64) throws -> [String] {
            var config = SimulationConfig()
            config.seed = seed
            var sim = try Simulation(chain: chain, config: config)
            var lines: [String] = []
            for _ in 0..<20 {
                let (batches, truth) = sim.nextWindow()
                lines += batches.map { "\($0.gateway) \($0.seq) \($0.sightings.map { "\($0.device)@\($0.time):\($0.rssi)" })" }
                lines += truth.map { "\($0)" }
            }
            return lines
        }
        let a = try run(7)
        #expect(try run(7) == a)
        #expect(try run(8) != a)
        #expect(a.count > 300)
    }

    @Test("sightings are plausible: in range, ordered, inside their window")
    func plausible() throws {
        let chain = try DefaultChain.config().resolve()
        var sim = try Simulation(chain: chain, config: SimulationConfig())
        var count = 0
        for _ in 0..<60 {
            for b in sim.nextWindow().batches {
                #expect(b.sightings.map(\.time) == b.sightings.map(\.time).sorted())
                for s in b.sightings {
                    #expect((-127...20).contains(s.rssi))
                    #expect(s.time <= b.sent && s.time > b.sent - 1000)
                    count += 1
                }
            }
        }
        #expect(count > 1000)
    }

    @Test("each window, the gateway that hears a shopper best is mostly one of its true section's")
    func strongestInTrueSection() throws {
        let chain = try DefaultChain.config().resolve()
        var sim = try Simulation(chain: chain, config: SimulationConfig())
        var truth: [DeviceID: (store: StoreNumber?, section: SectionNumber?)] = [:]
        var right = 0, total = 0
        for _ in 0..<300 {
            let (batches, changes) = sim.nextWindow()
            var best: [DeviceID: (rssi: Int, gateway: Int)] = [:]
            for b in batches {
                let g = try #require(chain.gatewayIndex[b.gateway])
                for s in b.sightings where s.rssi > (best[s.device]?.rssi ?? .min) { best[s.device] = (s.rssi, g) }
            }
            for (device, heard) in best {
                guard let place = truth[device], let store = place.store, let section = place.section else { continue }
                let gateway = chain.gateways[heard.gateway]
                total += 1
                if chain.stores[gateway.store].major == store && chain.sections[gateway.section].minor == section { right += 1 }
            }
            for c in changes { truth[c.device] = (c.store, c.section) }
        }
        // About 4 in 5 on the default scenario (shadowing, bodies and boundary stops make the rest).
        #expect(total > 1000)
        #expect(Double(right) / Double(total) > 0.7, "\(right) of \(total)")
    }

    @Test("a gateway without a position is refused by name (it would hear no one)")
    func gatewayWithoutPosition() throws {
        var config = DefaultChain.config()
        config.gateways[4].position = nil
        let chain = try config.resolve()
        #expect { _ = try Simulation(chain: chain, config: SimulationConfig()) } throws: { "\($0)".contains(config.gateways[4].id) }
    }

    @Test("the quality table's baseline on the shoppers is the strongest gateway over 6 s: below the default, flapping more")
    func shoppersBaseline() throws {
        let simulated = SimulatedCalibration(siteSeed: 1)
        let baseline = try simulated.baseline(seed: 11)
        let chain = WalkCalibration.uncalibrated(simulated.chain)
        let plain = try InProcessRun.run(chain: chain, tuning: chain.tuning, config: simulated.shoppers(seed: 11))
        print(Report.row("strongest 6 s", baseline, wide: true))
        print(Report.row("default", plain, wide: true))
        // The same shoppers, so the same true changes; the baseline decides at once, unlike the default.
        #expect(baseline.trueSectionChanges == plain.trueSectionChanges && baseline.trueSectionChanges > 100)
        #expect(baseline.sectionAccuracy < plain.sectionAccuracy)
        let baselineEnters = try #require(baseline.sectionEntersPerTrueChange)
        let defaultEnters = try #require(plain.sectionEntersPerTrueChange)
        #expect(baselineEnters > 1.5 * defaultEnters, "\(baselineEnters) against \(defaultEnters)")
    }

    /// A rule and exit setting to score.
    struct Variant: Sendable, CustomTestStringConvertible {
        let name: String
        let rule: Tuning.Rule
        var exitRule = Tuning.ExitRule.adaptive
        var streetExit = true
        var testDescription: String { name }
    }

    static let variants = [
        Variant(name: "hysteresis", rule: .hysteresis),
        Variant(name: "hmm", rule: .hmm),
        Variant(name: "hysteresis, silence only", rule: .hysteresis, streetExit: false),
        Variant(name: "hysteresis, fixed 30 s", rule: .hysteresis, exitRule: .timeout, streetExit: false),
        Variant(name: "nearest, fixed 30 s", rule: .nearest, exitRule: .timeout, streetExit: false),
    ]

    @Test("accuracy of each rule on the default scenario (figures printed; floors only guard regressions)",
          arguments: variants)
    func accuracy(_ variant: Variant) throws {
        let chain = DefaultChain.config()
        var tuning = Tuning()
        tuning.rule = variant.rule
        tuning.exitRule = variant.exitRule
        tuning.streetExit = variant.streetExit
        var config = SimulationConfig()
        config.duration = 600
        let r = try InProcessRun.run(chain: chain, tuning: tuning, config: config)
        print(Report.row(variant.name, r))
        #expect(r.storeAccuracy > 0.8)
        #expect(r.sectionAccuracy > 0.6)
    }
}
