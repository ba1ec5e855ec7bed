import Testing
import BeaconCore
import BeaconEngine
import BeaconSim

/// The shop day `beacon-sim day` simulates: arrivals only while the doors are open, fewer in the
/// morning than late in the afternoon, and nobody let in while they are closed.
@Suite("Simulator: a shop day")
struct FootfallDayTests {
    @Test func arrivalsFollowTheOpeningHours() throws {
        let day = FootfallDay(opens: 8, closes: 20, busiestArrivalInterval: 20)
        #expect(day.arrivalInterval(hour: 7) == nil)
        #expect(day.arrivalInterval(hour: 20) == nil)
        let morning = try #require(day.arrivalInterval(hour: 8) as Double?), evening = try #require(day.arrivalInterval(hour: 17) as Double?)
        #expect(morning > evening)
        let busiest = (8..<20).compactMap { day.arrivalInterval(hour: $0) }.min()
        #expect(busiest == 20)
        // A longer day keeps its last hours' share.
        #expect(FootfallDay(opens: 6, closes: 22).arrivalInterval(hour: 21) != nil)
    }

    /// Stores entered (truth changes into a store) over `seconds` of `simulation`.
    static func entries(_ simulation: inout Simulation, seconds: Int) -> Int {
        var entered = 0
        for _ in 0..<seconds {
            entered += simulation.nextWindow().truth.filter { $0.store != nil && $0.section != nil }.count
        }
        return entered
    }

    @Test func closedDoorsLetNobodyIn() throws {
        var config = SimulationConfig()
        config.initialShoppers = 0
        config.staffPerStore = 0
        var simulation = try Simulation(chain: try DefaultChain.config().resolve(), config: config)
        simulation.setArrivals(every: nil)
        #expect(Self.entries(&simulation, seconds: 120) == 0)
        simulation.setArrivals(every: 5)
        #expect(Self.entries(&simulation, seconds: 120) > 0)
    }
}
