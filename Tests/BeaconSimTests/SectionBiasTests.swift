import BeaconCore
import BeaconEngine
import Foundation
import Testing
@testable import BeaconSim

/// Levels bound to whole sections (``SectionBias``): drawn once per site, blended across a metre
/// either side of a boundary, and added to nothing else: at σ = 0 every sighting is what it was.
@Suite("Simulator: sections' levels", .serialized)
struct SectionBiasTests {
    static let chain = try! DefaultChain.config().resolve()

    @Test("one offset per site, gateway and section, spread by σ; the site seed keeps them while the seed changes the people")
    func drawnPerSite() throws {
        let bias = SectionBias(chain: Self.chain, sigma: 3, seed: 7)
        var offsets: [Double] = []
        for (g, gateway) in Self.chain.gateways.enumerated() {
            for local in 0..<Self.chain.stores[gateway.store].sections.count { offsets.append(bias.offset(gateway: g, section: local)) }
        }
        #expect(offsets.count == 270, "3 stores × 15 gateways × 6 sections")
        let (mean, sd) = DeviceSpreadTests.spread(offsets)
        #expect(abs(mean) < 0.6 && abs(sd - 3) < 0.4, "mean \(mean), sd \(sd)")

        func simulation(seed: UInt64, site: UInt64?) throws -> Simulation {
            var config = SimulationConfig()
            config.seed = seed
            config.siteSeed = site
            config.sectionBiasSigma = 3
            return try Simulation(chain: Self.chain, config: config)
        }
        let site = try simulation(seed: 1, site: 7), otherDay = try simulation(seed: 2, site: 7), otherSite = try simulation(seed: 1, site: 8)
        let all = (0..<Self.chain.gateways.count).flatMap { g in (0..<6).map { (g, $0) } }
        #expect(all.allSatisfy { site.sectionBias.offset(gateway: $0.0, section: $0.1) == bias.offset(gateway: $0.0, section: $0.1) })
        #expect(all.allSatisfy { site.sectionBias.offset(gateway: $0.0, section: $0.1) == otherDay.sectionBias.offset(gateway: $0.0, section: $0.1) })
        #expect(!all.allSatisfy { site.sectionBias.offset(gateway: $0.0, section: $0.1) == otherSite.sectionBias.offset(gateway: $0.0, section: $0.1) })
        #expect(SectionBias(chain: Self.chain, sigma: 0, seed: 7).isZero)
    }

    @Test("a section's own offset inside it; half of each at a boundary, from either side; outside, the street door's")
    func blendsAcrossBoundaries() throws {
        let plan = try #require(FloorPlan(chain: Self.chain, store: 0))
        // Entrance (local 0) spans x 0–12, y 0–10; Grocery (local 1) is east of it, Household (3) north.
        #expect(plan.sectionMix(at: Chain.Point(x: 6, y: 5), in: 0) == SectionBias.Mix(section: 0))
        let nearEast = plan.sectionMix(at: Chain.Point(x: 11.5, y: 5), in: 0)
        #expect(nearEast.section == 0 && nearEast.neighbour?.section == 1)
        #expect(abs((nearEast.neighbour?.share ?? 0) - 0.25) < 1e-9)
        let justWest = plan.sectionMix(at: Chain.Point(x: 11.9999, y: 5), in: 0), justEast = plan.sectionMix(at: Chain.Point(x: 12.0001, y: 5), in: 1)
        let bias = SectionBias(chain: Self.chain, sigma: 4, seed: 3)
        for g in Self.chain.stores[0].gateways {
            #expect(abs(bias.offset(gateway: g, at: justWest) - bias.offset(gateway: g, at: justEast)) < 0.01, "gateway \(g): no step at the boundary")
        }
        #expect(plan.sectionMix(at: Chain.Point(x: 6, y: 9.6), in: 0).neighbour?.section == 3)
        // The store's outer walls have no section beyond them.
        #expect(plan.sectionMix(at: Chain.Point(x: 0.3, y: 5), in: 0) == SectionBias.Mix(section: 0))
        #expect(plan.sectionMix(at: Chain.Point(x: 6, y: -3), in: nil) == SectionBias.Mix(section: plan.streetDoors[0].section))
    }

    @Test("with σ, each sighting moves by its gateway's offset where the device stood, and by nothing else")
    func changesNothingElse() throws {
        func simulation(_ sigma: Double) throws -> Simulation {
            var config = SimulationConfig()
            config.seed = 5
            config.sectionBiasSigma = sigma
            // One tick a window: a window's adverts were all sent from where their devices are at its end.
            config.batchWindow = Double(Simulation.tick) / 1000
            return try Simulation(chain: Self.chain, config: config)
        }
        var without = try simulation(0), with = try simulation(4)
        var compared = 0, moved = 0, heardBoth = 0
        for _ in 0..<1500 {
            let plain = without.nextWindow().batches, biased = with.nextWindow().batches
            var stood: [DeviceID: (store: Int, mix: SectionBias.Mix)] = [:]
            for person in with.people {
                let plan = with.plans[person.store]
                stood[person.device] = (person.store, plan.sectionMix(at: person.position, in: plan.section(at: person.position, storey: person.storey)))
            }
            for (a, b) in zip(plain, biased) {
                let g = try #require(Self.chain.gatewayIndex[a.gateway])
                var before: [String: Int] = [:]
                for s in a.sightings { before["\(s.device) \(s.time)"] = s.rssi }
                for s in b.sightings {
                    guard let rssi = before["\(s.device) \(s.time)"], let place = stood[s.device] else { continue }
                    heardBoth += 1
                    // Levels clamped at the ends of the RSSI range cannot move.
                    guard (-126...19).contains(rssi), (-126...19).contains(s.rssi) else { continue }
                    let expected = with.sectionBias.offset(gateway: g, at: place.mix)
                    // Each level is rounded to whole dB: its move is the offset within 1 dB.
                    #expect(abs(Double(s.rssi - rssi) - expected) <= 1 + 1e-9, "\(s.device) at \(a.gateway): \(s.rssi - rssi) dB, offset \(expected)")
                    compared += 1
                    if s.rssi != rssi { moved += 1 }
                }
            }
        }
        #expect(compared > 20_000 && Double(moved) / Double(compared) > 0.6, "\(moved) of \(compared) sightings moved")
        #expect(heardBoth > compared / 2)
    }

    /// FNV-1a over every sighting of `windows` batch windows of `config`, in order.
    static func digest(_ config: SimulationConfig, windows: Int) throws -> UInt64 {
        var simulation = try Simulation(chain: chain, config: config)
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for _ in 0..<windows {
            for batch in simulation.nextWindow().batches {
                for s in batch.sightings {
                    for byte in "\(batch.gateway) \(batch.seq) \(s.device) \(s.time) \(s.rssi)\n".utf8 {
                        hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
                    }
                }
            }
        }
        return hash
    }

    /// The digest of seed 5's first 30 windows as the simulator gave them without sections' levels
    /// and before the fading bound to a device's spot (the same as of the first 30 batches per
    /// gateway of `beacon-sim run --seed 5 --section-bias-sigma 0 --bound-fading-sigma 0
    /// --fading-sigma 4`); a change to the radio meant to move every run changes it too.
    static let withoutSectionLevels: UInt64 = 0x9409_8e42_9c71_a477

    @Test("at σ 0 every sighting is what the simulator gave without sections' levels, and without the bound fade as before it")
    func zeroIsWithout() throws {
        var config = SimulationConfig()
        config.seed = 5
        config.sectionBiasSigma = 0
        config.boundFadingSigma = 0
        config.fadingSigma = 4
        let plain = try Self.digest(config, windows: 30)
        #expect(plain == Self.withoutSectionLevels, "digest \(String(plain, radix: 16))")
        config.sectionBiasSigma = SimulationConfig().sectionBiasSigma
        #expect(try Self.digest(config, windows: 30) != plain)
        config.sectionBiasSigma = 0
        config.boundFadingSigma = SimulationConfig().boundFadingSigma
        #expect(try Self.digest(config, windows: 30) != plain)
    }
}
