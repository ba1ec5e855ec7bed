import BeaconCore
import BeaconEngine
import Testing
@testable import BeaconSim

/// The simulator on two storeys (`beacon-sim chain --storeys 2`): people reach the first floor
/// by the stairs, and the street test, told the floors, does not take them for people outside.
@Suite("Two storeys")
struct StoreysTests {
    static func config(seed: UInt64, duration: Double) -> SimulationConfig {
        var config = SimulationConfig()
        config.seed = seed
        config.duration = duration
        return config
    }

    @Test("upstairs is reached by the stairs from the entrance, and people there are on the first floor")
    func stairs() throws {
        let chain = try DefaultChain.config(stores: 1, storeys: 2).resolve()
        var simulation = try Simulation(chain: chain, config: Self.config(seed: 1, duration: 300))
        var truth: [TruthChange] = []
        var upstairs = 0
        for _ in 0..<300 {
            truth += simulation.nextWindow().truth
            for person in simulation.people {
                // Someone stopped in the store is in the section they walked to, on its floor.
                guard case .lingering = person.activity, person.onward.isEmpty else { continue }
                #expect(simulation.plans[0].section(at: person.position, storey: person.storey) == person.target)
                if person.storey == 1 { upstairs += 1 }
            }
        }
        #expect(upstairs > 0, "nobody went upstairs")
        // Every move between the floors is between the entrance (1) and the section above it (4).
        let byDevice = Dictionary(grouping: truth, by: \.device)
        var climbs = 0
        for changes in byDevice.values {
            for (a, b) in zip(changes, changes.dropFirst()) {
                guard let from = a.section, let to = b.section, (from <= 3) != (to <= 3) else { continue }
                #expect(Set([from, to]) == [1, 4], "\(a.device): \(from) → \(to)")
                climbs += 1
            }
        }
        #expect(climbs > 0)
    }

    /// False store exits of the default rule on 300 s of `chain`, the engine given `engineChain`.
    static func falseExits(simulated chain: ChainConfig, engine engineChain: ChainConfig) throws -> Int {
        try InProcessRun.run(simulating: chain, decidedWith: engineChain, config: config(seed: 1, duration: 300)).falseExits
    }

    @Test("told the floors, the street test stops taking people upstairs for people walking away outside")
    func streetTestKnowsTheFloors() throws {
        let chain = DefaultChain.config(storeys: 2)
        var unaware = chain
        for s in unaware.stores.indices {
            for k in unaware.stores[s].sections.indices { unaware.stores[s].sections[k].floor = nil }
        }
        let told = try Self.falseExits(simulated: chain, engine: chain)
        let notTold = try Self.falseExits(simulated: chain, engine: unaware)
        // Not told, the phones above the entrance sound like people out in the street.
        #expect(notTold >= 6, "\(notTold) false exits without the floors")
        #expect(told * 3 <= notTold, "\(told) false exits told the floors, \(notTold) without")
    }
}
