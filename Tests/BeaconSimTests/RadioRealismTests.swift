import BeaconCore
import BeaconEngine
import Foundation
import TestSupport
import Testing
@testable import BeaconSim

/// Is the simulator's radio as hard as real radio at the scale of sections? Two figures, on the
/// shared real datasets and on the simulator, printed (docs/MEASUREMENTS.md, "Section-scale
/// levels"): how much of a link's level belongs to a whole section (``SectionLevelSplit``), and
/// how often the gateway heard loudest over 3 s is in the true section. The expectations guard
/// what the simulator's defaults rest on, loosely.
@Suite("Radio at the scale of sections: real and simulated", .cpuBound, .serialized,
       .enabled(if: DatasetFixtures.kolakowskiAvailable && DatasetFixtures.salrbAvailable, "../shared/testdata/datasets is absent"))
struct RadioRealismTests {
    /// The flat's rooms, and its anchors' cells, which cut across its walls (the control).
    static func flatSplits() throws -> (rooms: SectionLevelSplit, cells: SectionLevelSplit) {
        let folder = DatasetFixtures.kolakowski
        let anchors = try KolakowskiImporter.readAnchors(folder + "/anchors.csv")
        let cells = KolakowskiImporter.anchorZoning(
            anchors: anchors.map { (id: $0.id, position: Chain.Point(x: $0.x, y: $0.y)) }, outline: try KolakowskiImporter.readOutline(folder + "/layout.csv"))
        let rooms = KolakowskiImporter.proposedRooms
        return (SectionLevelSplit(try RadioSamples.kolakowski(folder: folder, zoning: rooms), sectionsPerLink: { _ in rooms.zones.count }),
                SectionLevelSplit(try RadioSamples.kolakowski(folder: folder, zoning: cells), sectionsPerLink: { _ in cells.zones.count }))
    }

    /// The simulator's default radio on site `site`, with the sections' levels at `sigma`.
    static func config(site: UInt64, sectionBias sigma: Double? = nil) -> SimulationConfig {
        var config = SimulationConfig()
        config.seed = site
        if let sigma { config.sectionBiasSigma = sigma }
        return config
    }

    @Test("on the flat, a part of each link's level belongs to its room; none to cells that cut across the walls")
    func flat() throws {
        let (rooms, cells) = try Self.flatSplits()
        print(rooms.report("Kolakowski flat, 5 rooms"))
        print(cells.report("Kolakowski flat, 6 anchor cells (the control)"))
        #expect(rooms.links == 6 && cells.links == 6 && rooms.samples > 8_000)
        #expect(rooms.sigma > 1 && rooms.sigma < 3.5, "σ_section \(rooms.sigma) dB on the rooms")
        #expect(cells.sigma < rooms.sigma, "cells \(cells.sigma) dB, rooms \(rooms.sigma) dB")
    }

    @Test("the simulator's walk, read by the same instrument: its sections' levels show, as the flat's rooms' do")
    func simulatorWalk() throws {
        let (rooms, _) = try Self.flatSplits()
        var gaps: [Double: Double] = [:]
        for sigma in [0, SimulationConfig().sectionBiasSigma] {
            for site: UInt64 in [1, 2] {
                let (samples, sections) = try RadioSamples.simulatorWalk(Self.config(site: site, sectionBias: sigma))
                let split = SectionLevelSplit(samples, sectionsPerLink: sections)
                print(split.report("simulator walk, site \(site), --section-bias-sigma \(sigma)"))
                gaps[sigma, default: 0] += split.gap / 2
            }
        }
        print("flat rooms: σ_section \(String(format: "%.2f", rooms.sigma)) dB")
        let without = gaps[0]!, with = gaps[SimulationConfig().sectionBiasSigma]!
        #expect(with > without, "same − cross excess with the sections' levels \(with) dB², without \(without) dB²")
    }

    @Test("the simulator's radio on the flat itself, along the robot's route, read as the flat is")
    func flatTwin() throws {
        let (rooms, _) = try Self.flatSplits()
        // The flat's own strongest-gateway share is the next test's (Kolakowski flat, 5 rooms).
        print("flat rooms: σ_section \(String(format: "%.2f", rooms.sigma)) dB (excess \(String(format: "%.1f", rooms.gap)) dB²)")
        var gaps: [Double: Double] = [:], shares: [Double: Double] = [:]
        let sites: [UInt64] = Array(1...8)
        for sigma in [0, SimulationConfig().sectionBiasSigma] {
            for site in sites {
                let twin = try RadioSamples.flatTwin(Self.config(site: site, sectionBias: sigma), zones: .rooms)
                let split = SectionLevelSplit(twin.samples, sectionsPerLink: { _ in twin.sections })
                print(split.report("flat twin, rooms, site \(site), --section-bias-sigma \(sigma)"))
                print("  strongest over 3 s in the true section: \(String(format: "%.1f", twin.share.percent)) % of \(twin.share.total) s")
                gaps[sigma, default: 0] += split.gap / Double(sites.count)
                shares[sigma, default: 0] += twin.share.percent / Double(sites.count)
            }
            print("flat twin, --section-bias-sigma \(sigma), mean of \(sites.count) sites: excess \(String(format: "%.1f", gaps[sigma]!)) dB², "
                + "strongest over 3 s in the true section \(String(format: "%.1f", shares[sigma]!)) %")
        }
        let without = gaps[0]!, with = gaps[SimulationConfig().sectionBiasSigma]!
        #expect(with > without, "the instrument sees the sections' levels on the twin: \(with) dB² against \(without) dB²")
        #expect(shares.values.allSatisfy { $0 > 50 && $0 < 90 }, "the twin is as hard as a real dataset: \(shares)")
    }

    @Test("the gateway heard loudest over 3 s is in the true section: real datasets, and the simulator without and with sections' levels")
    func strongestOverThreeSeconds() throws {
        var lines: [String] = []
        let datasets: [(String, ImportedDataset)] = [
            ("Kolakowski flat, 5 rooms", try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski, zones: .rooms)),
            ("Kolakowski flat, 6 anchor cells", try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski)),
            ("SAL-RB chamber, 2 zones", try SALRBImporter.importDataset(folder: DatasetFixtures.salrb, outside: .none)),
        ]
        var real: [Double] = []
        for (name, dataset) in datasets {
            let chain = try dataset.chain.resolve()
            let share = StrongestShare.of(RecordingLayout.combined(dataset.runs.filter { !$0.truth.isEmpty }, gap: 60_000, chain: chain), chain: chain)
            real.append(share.percent)
            lines.append("\(name): \(String(format: "%.1f", share.percent)) % of \(share.total) s")
        }
        var simulated: [Double: [Double]] = [:]
        for sigma in [0, SimulationConfig().sectionBiasSigma] {
            for seed: UInt64 in [1, 5, 13] {
                let share = try Self.simulatedShare(Self.config(site: seed, sectionBias: sigma), seconds: 300)
                simulated[sigma, default: []].append(share.percent)
                lines.append("simulator seed \(seed), 300 s, --section-bias-sigma \(sigma): \(String(format: "%.1f", share.percent)) % of \(share.total) device-seconds")
            }
        }
        lines.forEach { print($0) }
        #expect(real.allSatisfy { $0 > 50 && $0 < 90 }, "\(real)")
        let without = simulated[0]!, with = simulated[SimulationConfig().sectionBiasSigma]!
        #expect(with.reduce(0, +) < without.reduce(0, +), "sections' levels make the strongest gateway wrong more often: \(with) against \(without)")
    }

    /// The share over `seconds` of shoppers with `config`, in 1 s windows.
    static func simulatedShare(_ config: SimulationConfig, seconds: Int) throws -> StrongestShare {
        let chain = try DefaultChain.config().resolve()
        var simulation = try Simulation(chain: chain, config: config)
        var share = StrongestShare(chain: chain)
        for _ in 0..<seconds {
            let (batches, changes) = simulation.nextWindow()
            share.add(batches, changes: changes, end: simulation.now)
        }
        return share
    }
}
