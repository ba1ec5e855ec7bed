/// How a walk is split to score its calibration on data it was not learnt from: each fold is a
/// set of time spans, scored with fingerprints learnt on every sample outside them.
///
/// A fold must leave every section in the training data, or the held-out figure only says that
/// a section nobody walked is never recognised. So the walk's separate recordings are the folds
/// only when each of them goes through every section; otherwise each section's visits alternate
/// between two folds, and a section visited once gives each fold half of its visit.
public struct WalkFolds: Sendable, Equatable {
    /// The folds: per fold, the spans scored (Unix ms).
    public var folds: [[ClosedRange<Int64>]]
    /// How the walk was split, in words.
    public var method: String

    /// A split.
    public init(folds: [[ClosedRange<Int64>]], method: String) {
        self.folds = folds
        self.method = method
    }

    /// Samples a recording needs in a section to count as going through it: 10 s.
    public static let minimumPerSection = 20
    /// A gap longer than this between two samples in the same section starts another visit, ms.
    static let visitGap: Int64 = 2000

    /// The split of `samples` (in time order): by recording when `parts` (the recordings' spans)
    /// are two or more that each go through every section sampled, else by visit — each place's
    /// visits, outside a store included, alternating between two folds; nil when the walk is too
    /// short to split (under 20 samples per fold).
    public static func split(_ samples: [WalkSample], parts: [ClosedRange<Int64>] = []) -> WalkFolds? {
        guard samples.count >= 2 * minimumPerSection else { return nil }
        let sections = Set(samples.compactMap(\.section))
        let recordings = parts.filter { part in samples.contains { part.contains($0.time) } }
        let complete = recordings.allSatisfy { part in
            sections.allSatisfy { s in samples.filter { $0.section == s && part.contains($0.time) }.count >= minimumPerSection }
        }
        if recordings.count >= 2 && complete {
            return WalkFolds(folds: recordings.map { [$0] }, method: "each recording scored, learnt on the others")
        }
        var folds: [[ClosedRange<Int64>]] = [[], []]
        for visits in Self.visits(samples).values {
            if visits.count >= 2 {
                for (k, visit) in visits.enumerated() { folds[k % 2].append(visit.span) }
            } else if let visit = visits.first, visit.middle > visit.span.lowerBound {
                folds[0].append(visit.span.lowerBound...(visit.middle - 1))
                folds[1].append(visit.middle...visit.span.upperBound)
            }
        }
        guard folds.allSatisfy({ !$0.isEmpty }) else { return nil }
        return WalkFolds(folds: folds.map { $0.sorted { $0.lowerBound < $1.lowerBound } },
                         method: "every other visit of each section, or half of a section's only visit, scored, learnt on the rest")
    }

    /// The walk's visits per section (nil: outside, whichever stores heard it — their samples
    /// share their moments): runs of samples there without a gap, each with its span and the time
    /// of its middle sample, in time order.
    static func visits(_ samples: [WalkSample]) -> [Int?: [(span: ClosedRange<Int64>, middle: Int64)]] {
        var visits: [Int?: [(span: ClosedRange<Int64>, middle: Int64)]] = [:]
        for (place, run) in Dictionary(grouping: samples, by: \.section) {
            var start = 0
            for i in run.indices where i + 1 == run.count || run[i + 1].time - run[i].time > visitGap {
                visits[place, default: []].append((run[start].time...run[i].time, run[(start + i + 1) / 2].time))
                start = i + 1
            }
        }
        return visits
    }
}
