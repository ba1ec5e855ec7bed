import BeaconEngine
import Testing
@testable import BeaconSim

@Suite("The default chain at another scale")
struct DefaultChainScaleTests {
    @Test("every length of the plan is scaled (to the millimetre), nothing else; the small plan is a valid chain the simulator walks")
    func scaled() throws {
        let plain = DefaultChain.config(gatewaysPerSection: 1, storeys: 2)
        let house = DefaultChain.config(gatewaysPerSection: 1, storeys: 2, scale: 0.4)
        let sections = { (c: ChainConfig) in c.stores.flatMap(\.sections) }
        #expect(sections(house).map(\.minor) == sections(plain).map(\.minor))
        #expect(sections(house).map(\.adjacent) == sections(plain).map(\.adjacent))
        #expect(sections(house).map(\.floor) == sections(plain).map(\.floor))
        for (small, large) in zip(sections(house), sections(plain)) {
            let expected = large.polygon?.map { $0.map { $0 * 0.4 } }
            #expect(zip(small.polygon ?? [], expected ?? []).allSatisfy { zip($0, $1).allSatisfy { abs($0 - $1) < 0.0005 } })
        }
        for (small, large) in zip(house.gateways, plain.gateways) {
            #expect(small.id == large.id)
            #expect(zip(small.position ?? [], large.position ?? []).allSatisfy { abs($0 - $1 * 0.4) < 0.0005 })
        }
        var config = SimulationConfig()
        config.duration = 120
        let report = try InProcessRun.run(chain: house, tuning: house.tuning, config: config)
        #expect(report.deviceHours > 0 && report.storeAccuracy > 0.5, "store accuracy \(report.storeAccuracy)")
    }
}
