import Foundation
public import BeaconEngine

/// The location-quality table: each shared real dataset laid end to end and replayed with every
/// uncalibrated rule (the strongest-gateway baseline at several windows beside them), and the
/// calibrated rule held out — learnt on some runs, scored on the others — also as another phone
/// would be heard (the scored runs' levels moved by a few dB); beside them, the truth itself
/// scored as a rule that is never wrong. `beacon-sim quality` prints it; the README's table and
/// docs/MEASUREMENTS.md come from it.
public enum QualityTable {
    /// A shared dataset as the table uses it.
    public struct Dataset: Sendable {
        public var name: String
        public var dataset: ImportedDataset
        /// How its calibration is held out.
        public var split: CalibrationSplit
    }

    /// The shared real datasets under `folder` (`../shared/testdata/datasets`), each with its
    /// held-out split: Kolakowski's five timed runs left out one at a time (rooms, and anchor
    /// cells), SAL-RB's ten files (outside lane dropped; and as a second store).
    public static func datasets(in folder: String, names: Set<String>? = nil) throws -> [Dataset] {
        let kolakowski = folder + "/kolakowski_ble_flat_calib2021", salrb = folder + "/sal_rb_vehicle_zones"
        var all: [Dataset] = []
        func add(_ name: String, _ make: () throws -> ImportedDataset, runs: (ImportedDataset) -> [Int]) throws {
            guard names?.contains(name) ?? true else { return }
            let dataset = try make()
            all.append(Dataset(name: name, dataset: dataset, split: .leaveOneOut(runs(dataset), name: "leave one run out")))
        }
        // Kolakowski: calib1…4 and the robot test run are timed; the walk (last) is not.
        try add("kolakowski rooms", { try KolakowskiImporter.importDataset(folder: kolakowski, zones: .rooms) }) { _ in [0, 1, 2, 3, 4] }
        try add("kolakowski cells", { try KolakowskiImporter.importDataset(folder: kolakowski, zones: .anchors) }) { _ in [0, 1, 2, 3, 4] }
        try add("salrb zones", { try SALRBImporter.importDataset(folder: salrb, outside: .none) }) { Array($0.runs.indices) }
        try add("salrb zones+lane", { try SALRBImporter.importDataset(folder: salrb, outside: .store) }) { Array($0.runs.indices) }
        return all
    }

    /// The uncalibrated rules of a row block: the default, the baseline at three windows, the others.
    public static let rules: [(label: String, rule: Tuning.Rule, window: Double?)] = [
        ("hysteresis", .hysteresis, nil), ("strongest 2 s", .strongest, 2), ("strongest 4 s", .strongest, 4),
        ("strongest 6 s", .strongest, 6), ("hmm", .hmm, nil), ("position", .position, nil),
    ]

    /// One dataset's rows: every uncalibrated rule on all its runs end to end, the truth itself
    /// (``truthRows(_:truth:end:)``), then the calibrated rule held out at each of `offsets` (dB: 0
    /// is the walking tag itself); `tuning` in place of the dataset's own (its rule set per row).
    public static func rows(_ entry: Dataset, tuning: Tuning? = nil, offsets: [Int] = [0, -6, 6]) throws -> [String] {
        let chain = try entry.dataset.chain.resolve()
        let base = tuning ?? entry.dataset.chain.tuning
        var rows: [String] = []
        let recording = RecordingLayout.combined(entry.dataset.runs.filter { $0.name != "walk" }, gap: 60_000, chain: chain)
        for (label, rule, window) in rules {
            var tuned = base.with(rule: rule)
            if let window { tuned.windowSeconds = window }
            let (report, _) = try InProcessRun.replay(chain: entry.dataset.chain, tuning: tuned, recording: recording)
            rows.append(row(entry.name, label, report))
        }
        rows += truthRows(entry.name, truth: recording.truth, end: recording.end)
        let samples = CalibrationSplit.samples(of: entry.dataset, chain: chain)
        for offset in offsets {
            let outcome = try entry.split.evaluate(entry.dataset, samples: samples, offset: offset, tuning: tuning)
            let phone = offset == 0 ? "the tag" : String(format: "a phone %+d dB", offset)
            rows.append(row(entry.name, "hysteresis, \(phone), held out", outcome.before))
            rows.append(row(entry.name, "fingerprint, \(phone), held out", outcome.after))
            if let sections = outcome.sectionsOnly { rows.append(row(entry.name, "  without its outside picture", sections)) }
        }
        return rows
    }

    /// The simulator's rows: a tag walks every store of the default chain, and the shoppers of each
    /// of `seeds` (their phones spread as real phones are) are scored with the default rule, with
    /// the walk's calibration (``SimulatedCalibration``), with the strongest gateway over 6 s, and
    /// as the truth itself.
    public static func simulatorRows(seeds: [UInt64], siteSeed: UInt64 = 1, tuning: Tuning? = nil) throws -> [String] {
        let simulated = SimulatedCalibration(siteSeed: siteSeed)
        let calibration = try simulated.calibration()
        var rows: [String] = []
        for seed in seeds {
            let (before, after) = try simulated.score(seed: seed, calibration: calibration, tuning: tuning)
            rows.append(row("simulator \(seed)", "hysteresis, the shoppers", before))
            rows.append(row("simulator \(seed)", "fingerprint, the shoppers, tag's walk", after))
            rows.append(row("simulator \(seed)", "strongest 6 s, the shoppers", try simulated.baseline(seed: seed, tuning: tuning)))
            let (truth, end) = try simulated.truth(seed: seed)
            rows += truthRows("simulator \(seed)", truth: truth, end: end)
        }
        return rows
    }

    /// The truth itself scored as a rule's reports, at once and with each change of section
    /// reported ``Evaluator/settleTime`` late (``TruthAsReports``): right all the time, its enters
    /// per true change count the sections a device passes through.
    static func truthRows(_ dataset: String, truth: [TruthChange], end: Int64) -> [String] {
        let late = Int(Evaluator.settleTime / 1000)
        return [(0, "the truth itself"), (Evaluator.settleTime, "the truth, sections \(late) s late")].map { delay, label in
            row(dataset, label, Evaluator.evaluate(truth: truth, reported: TruthAsReports.reports(truth, sectionDelay: delay, end: end), end: end))
        }
    }

    /// How honest the confidence is, as `beacon-sim quality --confidence` prints it: one dataset's
    /// section enters, the uncalibrated default's over all its runs and the calibrated rule's held
    /// out, pooled over `offsets` (``ConfidenceReliability``).
    public static func confidence(_ entry: Dataset, tuning: Tuning? = nil, offsets: [Int] = [0, -6, 6]) throws
        -> (default: ConfidenceReliability, calibrated: ConfidenceReliability) {
        let chain = try entry.dataset.chain.resolve()
        let recording = RecordingLayout.combined(entry.dataset.runs.filter { $0.name != "walk" }, gap: 60_000, chain: chain)
        let (report, _) = try InProcessRun.replay(chain: entry.dataset.chain, tuning: (tuning ?? entry.dataset.chain.tuning).with(rule: .hysteresis),
                                                  recording: recording)
        let samples = CalibrationSplit.samples(of: entry.dataset, chain: chain)
        let calibrated = try offsets.map { try entry.split.evaluate(entry.dataset, samples: samples, offset: $0, tuning: tuning).after }
        return (report.confidence, EvaluationReport.pooled(calibrated).confidence)
    }

    /// The same for the simulator's shoppers of `seeds`, pooled: the default's and the tag's walk's.
    public static func simulatorConfidence(seeds: [UInt64], siteSeed: UInt64 = 1, tuning: Tuning? = nil) throws
        -> (default: ConfidenceReliability, calibrated: ConfidenceReliability) {
        let simulated = SimulatedCalibration(siteSeed: siteSeed)
        let calibration = try simulated.calibration()
        var pooled = (default: ConfidenceReliability(), calibrated: ConfidenceReliability())
        for seed in seeds {
            let (before, after) = try simulated.score(seed: seed, calibration: calibration, tuning: tuning)
            pooled.default.add(before.confidence)
            pooled.calibrated.add(after.confidence)
        }
        return pooled
    }

    /// Column headers, aligned with ``row(_:_:_:)``.
    public static let header = "dataset".padding(toLength: 18, withPad: " ", startingAt: 0)
        + "rule".padding(toLength: 38, withPad: " ", startingAt: 0)
        + "section%  enters/chg  true chg  change p50/p95 s  exits missed/true  false exits  flaps/dev-h"

    static func row(_ dataset: String, _ label: String, _ r: EvaluationReport) -> String {
        func s(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "-" }
        let p50 = s(EvaluationReport.percentile(r.sectionChangeLatencies, 50)), p95 = s(EvaluationReport.percentile(r.sectionChangeLatencies, 95))
        let exits = r.missedExits + r.exitLatencies.count
        return dataset.padding(toLength: 18, withPad: " ", startingAt: 0) + label.padding(toLength: 38, withPad: " ", startingAt: 0)
            + String(format: "%8.1f", r.sectionAccuracy * 100)
            + (r.sectionEntersPerTrueChange.map { String(format: "%.2f", $0) } ?? "-").leftPadded(12)
            + String(r.trueSectionChanges).leftPadded(10)
            + "\(p50)/\(p95)".leftPadded(18)
            + (exits > 0 ? "\(r.missedExits)/\(exits)" : "-").leftPadded(19)
            + String(r.falseExits).leftPadded(13)
            + String(format: "%13.1f", r.flapsPerDeviceHour)
    }
}
