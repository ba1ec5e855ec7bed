import BeaconEngine
import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconSim

/// The `position` rule on the Kolakowski flat with the flat's own geometry: path-loss exponent
/// 2.7, anchors 0.5 m above the tag, every run end to end. The floors sit a couple of points
/// under what it scores there (docs/MEASUREMENTS.md).
@Suite("Position rule on the Kolakowski flat", .cpuBound, .enabled(if: DatasetFixtures.kolakowskiAvailable, "../shared/testdata/datasets is absent"))
struct PositionRealDataTests {
    @Test("anchor cells and rooms, with the flat's geometry", arguments: ["anchors", "rooms"])
    func flat(_ zones: String) throws {
        var dataset = try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski, zones: zones == "anchors" ? .anchors : .rooms)
        for i in dataset.chain.stores.indices { dataset.chain.stores[i].mountHeight = 0.5 }
        let chain = try dataset.chain.resolve()
        let recording = RecordingLayout.combined(dataset.runs, gap: 60_000, chain: chain)
        var tuning = dataset.chain.tuning
        tuning.rule = .position
        tuning.pathLossExponent = 2.7
        let (report, _) = try InProcessRun.replay(chain: dataset.chain, tuning: tuning, recording: recording)
        print(Report.row("position \(zones)", report, wide: true))
        let floor = zones == "anchors" ? 0.67 : 0.76
        #expect(report.sectionAccuracy > floor, "\(report.sectionAccuracy)")
        #expect(try #require(report.sectionEntersPerTrueChange) < 1.3)
        #expect(report.falseExits == 0)
    }
}
