import BeaconEngine
import Foundation
import Testing
@testable import BeaconSim

/// The fading bound to a device's spot (``BoundFade``): kept while the device stands still and
/// faces one way, fresh once it moves half a wavelength or turns, nothing drawn at σ 0.
@Suite("Simulator: fading bound to a spot")
struct BoundFadeTests {
    let here = Chain.Point(x: 3, y: 4)

    @Test("a device standing still and facing one way keeps its fade; a few centimetres' sway keeps it too")
    func standing() {
        var fade = BoundFade(random: SeededRandom(seed: 7))
        let first = fade.value(at: here, heading: 1, sigma: 3.5)
        #expect(first != 0)
        for _ in 0..<50 { #expect(fade.value(at: here, heading: 1, sigma: 3.5) == first) }
        #expect(fade.value(at: Chain.Point(x: 3.03, y: 4.03), heading: 1, sigma: 3.5) == first)
    }

    @Test("moving half a wavelength or turning draws a fresh fade, spread as σ says")
    func renewed() {
        let random = SeededRandom(seed: 11)
        var moved: [Double] = [], turned: [Double] = []
        for step in 0..<2_000 {
            var fade = BoundFade(random: random.fork(UInt64(step)))
            let start = fade.value(at: here, heading: 0, sigma: 3.5)
            var walker = fade
            moved.append(walker.value(at: Chain.Point(x: 3 + 2 * BoundFade.renewDistance, y: 4), heading: 0, sigma: 3.5) - start)
            turned.append(fade.value(at: here, heading: Double(step % 6 + 1), sigma: 3.5) - start)
        }
        // Two independent draws of σ 3.5 differ with a spread of 3.5·√2 ≈ 4.9 dB.
        for differences in [moved, turned] {
            let spread = (differences.map { $0 * $0 }.reduce(0, +) / Double(differences.count)).squareRoot()
            #expect(abs(spread - 3.5 * 2.0.squareRoot()) < 0.3, "\(spread)")
            #expect(differences.filter { $0 == 0 }.isEmpty)
        }
    }

    @Test("in the simulator, a shopper standing still hears every gateway at one level until it moves; with the fade fresh at each advert, not")
    func inSimulation() throws {
        func levels(bound: Double, fresh: Double, moveBy step: Double, sway: Bool = false) throws -> [Int] {
            var config = SimulationConfig()
            config.seed = 4
            // Everything else that moves a level between adverts held still.
            config.shadowSigma = 0
            config.fadingSigma = fresh
            config.boundFadingSigma = bound
            config.scanDutyCycle = 1
            config.packetLoss = 0
            var simulation = try Simulation(chain: try DefaultChain.config().resolve(), config: config)
            while simulation.people.isEmpty { _ = simulation.nextWindow() }
            let position = simulation.people[0].position
            // The store's gateway nearest the shopper, so that every advert is heard.
            let gateways = simulation.chain.stores[simulation.people[0].store].gateways
            let link = try #require(gateways.indices.min { a, b in
                func distance(_ k: Int) -> Double {
                    guard let at = simulation.chain.gateways[gateways[k]].position else { return .infinity }
                    return hypot(at.x - position.x, at.y - position.y)
                }
                return distance(a) < distance(b)
            })
            // Towards that gateway, so that it goes on hearing; or back and forth by `step` (a sway).
            let target = try #require(simulation.chain.gateways[gateways[link]].position)
            let length = max(hypot(target.x - position.x, target.y - position.y), 1e-9)
            return try (0..<20).map { i in
                let along = step * Double(sway ? i % 2 : i)
                simulation.people[0].position = Chain.Point(x: position.x + along * (target.x - position.x) / length,
                                                            y: position.y + along * (target.y - position.y) / length)
                let level = simulation.receive(0, gatewayIndex: gateways[link], link: link, at: simulation.now + Int64(i) * 500, in: nil, mix: nil)
                return try #require(level)
            }
        }
        #expect(Set(try levels(bound: 3.5, fresh: 0, moveBy: 0)).count == 1)
        #expect(Set(try levels(bound: 3.5, fresh: 0, moveBy: 0.03, sway: true)).count == 1, "a sway of 3 cm")
        #expect(Set(try levels(bound: 0, fresh: 4, moveBy: 0)).count > 5, "the fade of before: fresh at every advert")
        // Walking 20 cm between adverts: a fresh fade each time, beyond the path loss's own change.
        let walked = try levels(bound: 3.5, fresh: 0, moveBy: 0.2), still = try levels(bound: 0, fresh: 0, moveBy: 0.2)
        let differences = zip(walked, still).map { $0 - $1 }
        #expect(differences.count(where: { $0 != 0 }) > 10 && Set(differences).count > 5, "\(walked) \(still)")
    }

    @Test("the fade is renewed at half a wavelength: 0.9 of it keeps the fade, 1.1 of it draws afresh")
    func threshold() {
        var kept = 0, renewed = 0
        let random = SeededRandom(seed: 5)
        for round in 0..<200 {
            var fade = BoundFade(random: random.fork(UInt64(round)))
            let start = fade.value(at: here, heading: 0, sigma: 3.5)
            var near = fade, far = fade
            if near.value(at: Chain.Point(x: 3 + 0.9 * BoundFade.renewDistance, y: 4), heading: 0, sigma: 3.5) == start { kept += 1 }
            if far.value(at: Chain.Point(x: 3, y: 4 + 1.1 * BoundFade.renewDistance), heading: 0, sigma: 3.5) != start { renewed += 1 }
        }
        #expect(kept == 200 && renewed == 200, "kept \(kept), renewed \(renewed)")
    }

    @Test("with the fade or without, the people walk, stop and advertise the same: only the levels differ")
    func samePeople() throws {
        func run(bound: Double, fresh: Double) throws -> (truth: [TruthChange], adverts: [String]) {
            var config = SimulationConfig()
            config.seed = 6
            config.boundFadingSigma = bound
            config.fadingSigma = fresh
            var simulation = try Simulation(chain: try DefaultChain.config().resolve(), config: config)
            var truth: [TruthChange] = [], adverts: [String] = []
            for _ in 0..<120 {
                let window = simulation.nextWindow()
                truth += window.truth
                adverts += window.batches.flatMap { batch in batch.sightings.map { "\(batch.gateway) \($0.device) \($0.time)" } }
            }
            return (truth, adverts)
        }
        let with = try run(bound: 3.5, fresh: 2), without = try run(bound: 0, fresh: 4)
        #expect(with.truth.count > 20 && with.truth == without.truth)
        // The adverts heard differ where a level crosses the gateways' floor; most are the same.
        let shared = Set(with.adverts).intersection(without.adverts).count
        #expect(Double(shared) > 0.9 * Double(without.adverts.count), "\(shared) of \(without.adverts.count)")
    }

    @Test("at σ 0 it is 0 and draws nothing: the random stream goes on as without it")
    func zero() {
        var fade = BoundFade(random: SeededRandom(seed: 3)), untouched = BoundFade(random: SeededRandom(seed: 3))
        #expect(fade.value(at: here, heading: 0, sigma: 0) == 0)
        #expect(fade.value(at: here, heading: 0, sigma: 3.5) == untouched.value(at: here, heading: 0, sigma: 3.5))
    }
}
