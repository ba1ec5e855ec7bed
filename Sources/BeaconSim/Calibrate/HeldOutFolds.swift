public import BeaconCore

/// How a calibration is scored on data it did not learn from: with several tags, each tag's walk
/// in turn, learnt on the others' — one radio scored against another, as the shoppers' phones
/// will be; with one tag, the splits of its walk (``WalkFolds``).
public struct HeldOutFolds: Sendable {
    /// One fold: what it learns from, and what it scores.
    public struct Fold: Sendable {
        /// The samples learnt from.
        public var training: [WalkSample]
        /// Per device scored, the spans of its walk scored (Unix ms).
        public var scored: [(device: DeviceID, spans: [ClosedRange<Int64>])]
    }

    /// The folds.
    public var folds: [Fold]
    /// How the walks were split, in words.
    public var method: String

    /// The folds of `walks` (each tag with its samples, in time order; `parts` the separate
    /// recordings' spans); nil when one tag's walk is too short to split.
    public static func split(_ walks: [(device: DeviceID, samples: [WalkSample])], recording: Recording,
                             parts: [ClosedRange<Int64>] = []) -> HeldOutFolds? {
        if walks.count >= 2 {
            let folds = walks.indices.compactMap { held -> Fold? in
                guard let first = walks[held].samples.first?.time, let last = walks[held].samples.last?.time else { return nil }
                let training = walks.indices.filter { $0 != held }.flatMap { walks[$0].samples }
                return Fold(training: training, scored: [(walks[held].device, [first...last])])
            }
            return HeldOutFolds(folds: folds, method: "each tag's walk scored, learnt on the other tags' walks")
        }
        guard let walk = walks.first, let split = WalkFolds.split(walk.samples, parts: parts) else { return nil }
        let folds = split.folds.map { spans in
            Fold(training: walk.samples.filter { sample in !spans.contains { $0.contains(sample.time) } }, scored: [(walk.device, spans)])
        }
        return HeldOutFolds(folds: folds, method: split.method)
    }
}
