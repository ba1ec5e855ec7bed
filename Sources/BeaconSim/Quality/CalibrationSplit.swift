import BeaconCore
public import BeaconEngine

/// A way to split a dataset's runs for calibration: each fold learns fingerprints on `train` and
/// is scored on `test` (indices into the runs), and the folds' scores are pooled — what
/// `calibrate` would promise on recordings it did not learn from.
public struct CalibrationSplit: Sendable {
    /// What the split is, for output.
    public var name: String
    /// Each fold's runs to learn on and to score.
    public var folds: [(train: [Int], test: [Int])]

    public init(name: String, folds: [(train: [Int], test: [Int])]) {
        self.name = name
        self.folds = folds
    }

    /// Each run in turn scored, learnt on the others.
    public static func leaveOneOut(_ runs: [Int], name: String) -> CalibrationSplit {
        CalibrationSplit(name: name, folds: runs.map { held in (runs.filter { $0 != held }, [held]) })
    }

    /// The uncalibrated default and the calibrated rule on one split, pooled over its folds; where
    /// the walks taught an outside fingerprint, the calibrated rule without it too (sections only),
    /// and per rule the share of the time truly outside that the device was reported outside.
    public struct Outcome: Sendable {
        public var before: EvaluationReport
        public var after: EvaluationReport
        public var sectionsOnly: EvaluationReport?
        /// Per "before", "after", "sections": ms reported outside, ms truly outside.
        public var outsideTime: [String: (out: Int64, total: Int64)] = [:]
    }

    /// Samples every run on its own (a calibration is learnt from the samples of its runs).
    public static func samples(of dataset: ImportedDataset, chain: Chain) -> [[WalkSample]] {
        dataset.runs.map { run in
            WalkSampler.samples(chain: chain, recording: RecordingLayout.single(run, chain: chain), device: run.device)
        }
    }

    /// Scores the split on `dataset` (its runs' `samples`), the scored runs' levels moved by
    /// `offset` dB — as another phone, louder or quieter than the walking tag, would be heard —
    /// each rule decided with `tuning` (the dataset chain's own when nil; `rule` is set per side).
    public func evaluate(_ dataset: ImportedDataset, samples: [[WalkSample]], offset: Int = 0,
                         tuning: Tuning? = nil) throws -> Outcome {
        let chain = try dataset.chain.resolve()
        var before: [EvaluationReport] = [], after: [EvaluationReport] = [], sectionsOnly: [EvaluationReport] = []
        var outsideTime: [String: (out: Int64, total: Int64)] = [:]
        func replay(_ config: ChainConfig, _ recording: Recording, as name: String) throws -> EvaluationReport {
            var tuned = config
            if let tuning { tuned.tuning = tuning.with(rule: config.tuning.rule) }
            let (report, reported) = try InProcessRun.replay(chain: tuned, recording: recording)
            let (out, total) = Self.reportedOutside(truth: recording.truth, reported: reported, end: recording.end)
            outsideTime[name, default: (0, 0)].out += out
            outsideTime[name, default: (0, 0)].total += total
            return report
        }
        for fold in folds {
            let calibration = WalkCalibration.learn(chain: chain, samples: fold.train.flatMap { samples[$0] })
            let recording = RecordingLayout.combined(fold.test.map { dataset.runs[$0] }, gap: 60_000, chain: chain).shifted(by: offset)
            before.append(try replay(WalkCalibration.uncalibrated(dataset.chain), recording, as: "before"))
            after.append(try replay(WalkCalibration.calibrated(dataset.chain, with: calibration), recording, as: "after"))
            if calibration.stores.contains(where: { $0.outside != nil }) {
                var sections = calibration
                for i in sections.stores.indices { sections.stores[i].outside = nil }
                sectionsOnly.append(try replay(WalkCalibration.calibrated(dataset.chain, with: sections), recording, as: "sections"))
            }
        }
        return Outcome(before: .pooled(before), after: .pooled(after), sectionsOnly: sectionsOnly.isEmpty ? nil : .pooled(sectionsOnly),
                       outsideTime: outsideTime)
    }

    /// Of the time the truth has the device outside every store (scored), how much it was
    /// reported outside too, ms; and that time. The evaluator's store accuracy counts in-store
    /// time only, where a rule that never lets anyone out scores best.
    public static func reportedOutside(truth: [TruthChange], reported: [ReportedTransition], end: Int64) -> (out: Int64, total: Int64) {
        var out: Int64 = 0, total: Int64 = 0
        for device in Set(truth.map(\.device)) {
            let own = truth.filter { $0.device == device }.sorted { $0.time < $1.time }
            let stores = reported.filter { $0.device == device && $0.section == nil }.sorted { $0.time < $1.time }
            for (k, change) in own.enumerated() where change.place == .outside {
                let until = k + 1 < own.count ? own[k + 1].time : end
                var t = change.time
                var inside = stores.last { $0.time <= t }.map { $0.kind == .enter } ?? false
                for r in stores where r.time > t && r.time < until {
                    if !inside { out += r.time - t }
                    inside = r.kind == .enter
                    t = r.time
                }
                if !inside { out += until - t }
                total += until - change.time
            }
        }
        return (out, total)
    }
}

extension Tuning {
    /// This tuning with `rule` in place of its own.
    public func with(rule: Rule) -> Tuning {
        var tuning = self
        tuning.rule = rule
        return tuning
    }
}

extension Recording {
    /// The recording as a device `offset` dB louder (quieter, when negative) would have been
    /// heard: every reported level moved by that much, within what the wire carries. What a
    /// gateway did not hear stays unheard: a louder phone would have been heard more often, so
    /// this understates what a louder phone gives and overstates what a quieter one keeps.
    public func shifted(by offset: Int) -> Recording {
        guard offset != 0 else { return self }
        var moved = self
        for b in moved.batches.indices {
            for s in moved.batches[b].sightings.indices {
                moved.batches[b].sightings[s].rssi = min(20, max(-127, moved.batches[b].sightings[s].rssi + offset))
            }
        }
        return moved
    }
}
