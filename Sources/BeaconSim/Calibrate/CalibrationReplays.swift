import BeaconCore
import BeaconEngine

/// The replays a ``CalibrationAssessment`` scores: the walk with the uncalibrated rule and with the
/// calibration, and with each held-out fold's calibration — each also as other phones would be
/// heard (the walk's levels moved by each of `offsets`).
struct CalibrationReplays {
    /// Per offset (dB), what the uncalibrated rule reported.
    let before: [Int: [ReportedTransition]]
    /// What the calibration reported, on the walk as it was.
    let after: [ReportedTransition]
    /// Per fold, per offset, what the fold's calibration reported.
    let folds: [[Int: [ReportedTransition]]]
    /// The truth the replays are scored against.
    let truth: [TruthChange]

    init(config: ChainConfig, recording: Recording, calibration: Calibration, chain: Chain, folds: [HeldOutFolds.Fold], offsets otherOffsets: [Int]) throws {
        let offsets = Array(Set([0] + otherOffsets)).sorted()
        // What the store's traffic said of its phones holds for every fold: it is not the walk's.
        let phones = Dictionary(uniqueKeysWithValues: calibration.stores.map { ($0.major, $0.phonesOffset) })
        var before: [Int: [ReportedTransition]] = [:]
        for offset in offsets {
            before[offset] = try InProcessRun.replay(chain: WalkCalibration.uncalibrated(config), recording: recording.shifted(by: offset)).reported
        }
        self.before = before
        after = try InProcessRun.replay(chain: WalkCalibration.calibrated(config, with: calibration), recording: recording).reported
        self.folds = try folds.map { fold in
            var learnt = WalkCalibration.learn(chain: chain, samples: fold.training)
            for i in learnt.stores.indices { learnt.stores[i].phonesOffset = phones[learnt.stores[i].major] ?? nil }
            var reported: [Int: [ReportedTransition]] = [:]
            for offset in offsets {
                reported[offset] = try InProcessRun.replay(chain: WalkCalibration.calibrated(config, with: learnt),
                                                           recording: recording.shifted(by: offset)).reported
            }
            return reported
        }
        truth = recording.truth
    }

    /// The whole walk of every tag in store `store`.
    func whole(recording: Recording, walks: [(device: DeviceID, samples: [WalkSample])], store: StoreNumber) -> CalibrationAssessment.Comparison {
        var before: [EvaluationReport] = [], after: [EvaluationReport] = []
        for walk in walks {
            let start = truth.filter { $0.device == walk.device }.map(\.time).min() ?? recording.end
            let spans = [start...max(start, recording.end)]
            before.append(score(self.before[0] ?? [], walk.device, store, spans))
            after.append(score(self.after, walk.device, store, spans))
        }
        return .init(before: .pooled(before), after: .pooled(after))
    }

    /// The held-out folds in store `store`, pooled, at `offset`.
    func heldOut(_ folds: [HeldOutFolds.Fold], recording: Recording, store: StoreNumber, offset: Int) -> CalibrationAssessment.Comparison {
        heldOut(folds, recording: recording, store: store, offsets: [offset])
    }

    /// The same pooled over `offsets`.
    func heldOut(_ folds: [HeldOutFolds.Fold], recording: Recording, store: StoreNumber, offsets: [Int]) -> CalibrationAssessment.Comparison {
        var before: [EvaluationReport] = [], after: [EvaluationReport] = []
        for offset in offsets {
            for (k, fold) in folds.enumerated() {
                for scored in fold.scored {
                    before.append(score(self.before[offset] ?? [], scored.device, store, scored.spans))
                    after.append(score(self.folds[k][offset] ?? [], scored.device, store, scored.spans))
                }
            }
        }
        return .init(before: .pooled(before), after: .pooled(after))
    }

    private func score(_ reported: [ReportedTransition], _ device: DeviceID, _ store: StoreNumber, _ spans: [ClosedRange<Int64>]) -> EvaluationReport {
        WalkCalibration.score(truth: truth, reported: reported, device: device, store: store, spans: spans)
    }
}
