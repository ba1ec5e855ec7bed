import BeaconCore
import BeaconEngine

/// The replays a ``CalibrationAssessment`` scores: the walk with the uncalibrated rule and with the
/// calibration, and with each held-out fold's calibration — as the walking tag, and as other phones
/// would be heard (the walk's levels moved by each of `offsets`). Only the other phones are
/// expected at the level the store's traffic measured (`phones_offset_db`): the tag is the tag.
struct CalibrationReplays {
    /// Per offset (dB), what the uncalibrated rule reported; 0 is the tag.
    let before: [Int: [ReportedTransition]]
    /// What the calibration reported, on the walk as it was.
    let after: [ReportedTransition]
    /// Per fold, what the fold's calibration reported of the tag, and per offset of other phones.
    let folds: [(tag: [ReportedTransition], phones: [Int: [ReportedTransition]])]
    /// The truth the replays are scored against.
    let truth: [TruthChange]

    init(config: ChainConfig, recording: Recording, calibration: Calibration, chain: Chain, folds: [HeldOutFolds.Fold], offsets otherOffsets: [Int]) throws {
        let offsets = Array(Set(otherOffsets)).sorted()
        // What the store's traffic said of its phones holds for every fold: it is not the walk's.
        let phones = Dictionary(uniqueKeysWithValues: calibration.stores.map { ($0.major, $0.phonesOffset) })
        var before: [Int: [ReportedTransition]] = [:]
        for offset in Set([0] + offsets) {
            before[offset] = try InProcessRun.replay(chain: WalkCalibration.uncalibrated(config), recording: recording.shifted(by: offset)).reported
        }
        self.before = before
        after = try InProcessRun.replay(chain: WalkCalibration.calibrated(config, with: Self.asTag(calibration)), recording: recording).reported
        self.folds = try folds.map { fold in
            var learnt = WalkCalibration.learn(chain: chain, samples: fold.training)
            let tag = try InProcessRun.replay(chain: WalkCalibration.calibrated(config, with: Self.asTag(learnt)), recording: recording).reported
            for i in learnt.stores.indices { learnt.stores[i].phonesOffset = phones[learnt.stores[i].major] ?? nil }
            var reported: [Int: [ReportedTransition]] = [:]
            for offset in offsets {
                reported[offset] = try InProcessRun.replay(chain: WalkCalibration.calibrated(config, with: learnt),
                                                           recording: recording.shifted(by: offset)).reported
            }
            return (tag, reported)
        }
        truth = recording.truth
    }

    /// `calibration` expecting devices at the tag's level: without what the traffic said of the phones.
    static func asTag(_ calibration: Calibration) -> Calibration {
        var tag = calibration
        for i in tag.stores.indices { tag.stores[i].phonesOffset = nil }
        return tag
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

    /// The held-out folds in store `store`, pooled: the tag's own walk.
    func heldOutAsTag(_ folds: [HeldOutFolds.Fold], store: StoreNumber) -> CalibrationAssessment.Comparison {
        heldOut(folds, store: store, offsets: [0]) { k, _ in self.folds[k].tag }
    }

    /// The same as other phones would be heard, pooled over `offsets`.
    func heldOutAsPhones(_ folds: [HeldOutFolds.Fold], store: StoreNumber, offsets: [Int]) -> CalibrationAssessment.Comparison {
        heldOut(folds, store: store, offsets: offsets) { k, offset in self.folds[k].phones[offset] ?? [] }
    }

    private func heldOut(_ folds: [HeldOutFolds.Fold], store: StoreNumber, offsets: [Int],
                         calibrated: (Int, Int) -> [ReportedTransition]) -> CalibrationAssessment.Comparison {
        var before: [EvaluationReport] = [], after: [EvaluationReport] = []
        for offset in offsets {
            for (k, fold) in folds.enumerated() {
                for scored in fold.scored {
                    before.append(score(self.before[offset] ?? [], scored.device, store, scored.spans))
                    after.append(score(calibrated(k, offset), scored.device, store, scored.spans))
                }
            }
        }
        return .init(before: .pooled(before), after: .pooled(after))
    }

    private func score(_ reported: [ReportedTransition], _ device: DeviceID, _ store: StoreNumber, _ spans: [ClosedRange<Int64>]) -> EvaluationReport {
        WalkCalibration.score(truth: truth, reported: reported, device: device, store: store, spans: spans)
    }
}
