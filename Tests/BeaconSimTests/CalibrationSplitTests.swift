import BeaconCore
import BeaconEngine
import Foundation
import Testing
@testable import BeaconSim

/// Calibration on real radio: each shared dataset imported as `beacon-sim import` does, the
/// fingerprints learnt from some of its runs as `beacon-aggregator calibrate` learns them, and
/// the other runs replayed in process with the uncalibrated default and with the `fingerprint`
/// rule, scored by the product's evaluator. One row per dataset × split; the figures are in
/// docs/CALIBRATION.md. The floors only guard against regressions: well below the measured
/// values.
@Suite("Calibration × real datasets", .enabled(if: DatasetFixtures.kolakowskiAvailable && DatasetFixtures.salrbAvailable, "../shared/testdata/datasets is absent"))
struct CalibrationSplitTests {
    /// A way to split a dataset's runs: each fold learns on `train` and is scored on `test`
    /// (indices into the runs), and the folds' scores are pooled.
    struct Split {
        var name: String
        var folds: [(train: [Int], test: [Int])]

        /// Each run in turn scored, learnt on the others.
        static func leaveOneOut(_ runs: [Int], name: String) -> Split {
            Split(name: name, folds: runs.map { held in (runs.filter { $0 != held }, [held]) })
        }
    }

    /// The uncalibrated default and the calibrated rule on one split, pooled over its folds.
    struct Outcome {
        var before: EvaluationReport
        var after: EvaluationReport
    }

    /// Samples every run on its own (a calibration is learnt from the samples of its runs).
    static func samples(of dataset: ImportedDataset, chain: Chain) -> [[WalkSample]] {
        dataset.runs.map { run in
            WalkSampler.samples(chain: chain, recording: RecordingLayout.single(run, chain: chain), device: run.device)
        }
    }

    static func evaluate(_ dataset: ImportedDataset, split: Split, samples: [[WalkSample]]) throws -> Outcome {
        let chain = try dataset.chain.resolve()
        var before: [EvaluationReport] = [], after: [EvaluationReport] = []
        for fold in split.folds {
            let calibration = WalkCalibration.learn(chain: chain, samples: fold.train.flatMap { samples[$0] })
            let recording = RecordingLayout.combined(fold.test.map { dataset.runs[$0] }, gap: 60_000, chain: chain)
            before.append(try InProcessRun.replay(chain: WalkCalibration.uncalibrated(dataset.chain), recording: recording).report)
            after.append(try InProcessRun.replay(chain: WalkCalibration.calibrated(dataset.chain, with: calibration), recording: recording).report)
        }
        return Outcome(before: .pooled(before), after: .pooled(after))
    }

    /// `accuracy % / enters per true change / change p50/p95 s`.
    static func figures(_ r: EvaluationReport) -> String {
        let p50 = EvaluationReport.percentile(r.sectionChangeLatencies, 50).map { String(format: "%.1f", $0) } ?? "-"
        let p95 = EvaluationReport.percentile(r.sectionChangeLatencies, 95).map { String(format: "%.1f", $0) } ?? "-"
        let enters = r.sectionEntersPerTrueChange.map { String(format: "%.2f", $0) } ?? "-"
        return String(format: "%5.1f %%", r.sectionAccuracy * 100) + " / \(enters) / \(p50)/\(p95) s"
    }

    static func row(_ name: String, _ outcome: Outcome) -> String {
        let gain = (outcome.after.sectionAccuracy - outcome.before.sectionAccuracy) * 100
        return name.padding(toLength: 50, withPad: " ", startingAt: 0) + figures(outcome.before).padding(toLength: 40, withPad: " ", startingAt: 0)
            + figures(outcome.after).padding(toLength: 40, withPad: " ", startingAt: 0) + String(format: "%+5.1f", gain)
            + "   (\(outcome.after.trueSectionChanges) true changes)"
    }

    /// `missed exits / true exits, exit p50/p95 s, missed enters / true enters, false exits and
    /// enters, store accuracy`.
    static func exitFigures(_ r: EvaluationReport) -> String {
        let p50 = EvaluationReport.percentile(r.exitLatencies, 50).map { String(format: "%.1f", $0) } ?? "-"
        let p95 = EvaluationReport.percentile(r.exitLatencies, 95).map { String(format: "%.1f", $0) } ?? "-"
        return "missed \(r.missedExits)/\(r.missedExits + r.exitLatencies.count), \(p50)/\(p95) s, "
            + "enters missed \(r.missedEnters)/\(r.missedEnters + r.enterLatencies.count), false \(r.falseExits)/\(r.falseEnters), "
            + String(format: "store %.1f %%", r.storeAccuracy * 100)
    }

    static func exitRow(_ name: String, _ outcome: Outcome) -> String {
        name.padding(toLength: 50, withPad: " ", startingAt: 0) + exitFigures(outcome.before).padding(toLength: 84, withPad: " ", startingAt: 0)
            + exitFigures(outcome.after)
    }

    static let exitHeader = "store exits / split (learnt → scored)".padding(toLength: 50, withPad: " ", startingAt: 0)
        + "uncalibrated: exits missed, p50/p95, enters missed, false exits/enters, store".padding(toLength: 84, withPad: " ", startingAt: 0)
        + "fingerprint: the same"

    static let header = "dataset / split (learnt → scored)".padding(toLength: 50, withPad: " ", startingAt: 0)
        + "uncalibrated: acc / enters / p50/p95".padding(toLength: 40, withPad: " ", startingAt: 0)
        + "fingerprint: acc / enters / p50/p95".padding(toLength: 40, withPad: " ", startingAt: 0) + "points"

    @Test("Kolakowski flat, rooms and anchor cells: learnt on some runs, scored on the others")
    func kolakowski() throws {
        var rows: [String] = [], results: [String: Outcome] = [:]
        for (zoning, zones) in [("rooms", KolakowskiImporter.Zones.rooms), ("cells", .anchors)] {
            let dataset = try KolakowskiImporter.importDataset(folder: DatasetFixtures.kolakowski, zones: zones)
            let chain = try dataset.chain.resolve()
            let samples = Self.samples(of: dataset, chain: chain)
            // calib1…4 are runs 0–3, the robot test run 4; the walk (5) has no timed truth.
            let splits = [
                Split(name: "calib1-4 → robot", folds: [([0, 1, 2, 3], [4])]),
                Split(name: "robot → calib1-4", folds: [([4], [0, 1, 2, 3])]),
                Split.leaveOneOut([0, 1, 2, 3, 4], name: "leave one run out (5 folds)"),
            ]
            for split in splits {
                let outcome = try Self.evaluate(dataset, split: split, samples: samples)
                results["\(zoning)/\(split.name)"] = outcome
                rows.append(Self.row("kolakowski \(zoning): \(split.name)", outcome))
            }
            let calibration = WalkCalibration.learn(chain: chain, samples: samples[0...4].flatMap { $0 })
            let walk = RecordingLayout.single(dataset.runs[5], chain: chain)
            let (_, reported) = try InProcessRun.replay(chain: WalkCalibration.calibrated(dataset.chain, with: calibration), recording: walk)
            rows.append("kolakowski \(zoning): the walk (no timed truth; about 32 room changes): \(RealDatasetTableTests.sectionChanges(reported, within: walk.batches.first!.sent...walk.end)) section changes, learnt on the five robot runs")
        }
        print(Self.header)
        rows.forEach { print($0) }

        // Floors: the uncalibrated rule scores 72–74 % on rooms and 62–70 % on cells.
        for name in ["rooms/calib1-4 → robot", "rooms/leave one run out (5 folds)", "cells/calib1-4 → robot", "cells/leave one run out (5 folds)"] {
            let outcome = try #require(results[name])
            #expect(outcome.after.sectionAccuracy > outcome.before.sectionAccuracy, "\(name): calibration helps on held-out runs")
            #expect((outcome.after.sectionEntersPerTrueChange ?? 0) < 3, "\(name): the calibrated rule does not flap")
        }
        #expect(results["rooms/calib1-4 → robot"]!.after.sectionAccuracy > 0.8)
        #expect(results["rooms/leave one run out (5 folds)"]!.after.sectionAccuracy > 0.75)
        #expect(results["cells/leave one run out (5 folds)"]!.after.sectionAccuracy > 0.65)
    }

    @Test("SAL-RB chamber (outside none): learnt on some files, scored on the others")
    func salrb() throws {
        let dataset = try SALRBImporter.importDataset(folder: DatasetFixtures.salrb, outside: .none)
        let chain = try dataset.chain.resolve()
        let samples = Self.samples(of: dataset, chain: chain)
        let cars = dataset.runs.indices.filter { dataset.runs[$0].name.hasPrefix("car_sensor_1") }
        let splits = [
            Split.leaveOneOut(Array(dataset.runs.indices), name: "leave one file out (10 folds)"),
            Split(name: "car sensor 1 → the rest (car 2, walks)", folds: [(cars, dataset.runs.indices.filter { !cars.contains($0) })]),
        ]
        var rows: [String] = [], exitRows: [String] = [], results: [String: Outcome] = [:]
        for split in splits {
            let outcome = try Self.evaluate(dataset, split: split, samples: samples)
            results[split.name] = outcome
            rows.append(Self.row("salrb: \(split.name)", outcome))
            exitRows.append(Self.exitRow("salrb: \(split.name)", outcome))
        }
        print(Self.header)
        rows.forEach { print($0) }
        print(Self.exitHeader)
        exitRows.forEach { print($0) }

        // Floor: every uncalibrated rule is stuck near 60 % (section A is invisible uncalibrated).
        // No floor on section enters: over a third of those reported come while the car is outside
        // the chamber, where its sniffers still hear it and the engine keeps it in the store.
        let lofo = try #require(results["leave one file out (10 folds)"])
        #expect(lofo.after.sectionAccuracy > lofo.before.sectionAccuracy, "calibration helps on held-out files")
        #expect(lofo.after.sectionAccuracy > 0.6)
        #expect(lofo.after.falseExits == 0 || lofo.after.falseExits <= lofo.before.falseExits)
    }
}
