public import BeaconCore
public import BeaconEngine
import Foundation

/// How much a walk improved the fit, per calibrated store: the uncalibrated rule against the
/// `fingerprint` rule on the walk itself (optimistic: learnt and scored on the same data), and
/// held out — learnt on part of the walk, scored on the rest (``WalkFolds``) — which is what to
/// expect on days the walk did not see.
public struct CalibrationAssessment: Sendable {
    /// One store's figures.
    public struct StoreFigures: Sendable {
        /// The store.
        public var major: StoreNumber
        /// The uncalibrated rule compared against.
        public var baseline: Tuning.Rule
        /// Samples per section of the store (minor, samples): where the walk went, how long.
        public var sectionSamples: [(minor: SectionNumber, samples: Int)]
        /// Samples outside every store while the store's gateways heard the tag.
        public var outsideSamples: Int
        /// The uncalibrated rule and the calibrated one, on the whole walk.
        public var walk: (before: EvaluationReport, after: EvaluationReport)
        /// The same held out, when the walk is long enough to split.
        public var heldOut: (before: EvaluationReport, after: EvaluationReport)?
    }

    /// Per calibrated store, in the chain's order.
    public var stores: [StoreFigures]
    /// How the held-out figures were made, when they were.
    public var heldOutMethod: String?

    /// Fewer samples than this in a section (``WalkSampler/interval`` each) and the output says
    /// to walk it longer: its fingerprints are the wide defaults or little better.
    public static let thinSection = 40

    /// Replays `recording` with the uncalibrated rule and with `calibration`, and with one
    /// calibration per held-out fold (``WalkFolds``; `parts` are the time spans of the walk's
    /// separate recordings).
    public static func assess(config: ChainConfig, recording: Recording, device: DeviceID, samples: [WalkSample],
                              calibration: Calibration, parts: [ClosedRange<Int64>] = []) throws -> CalibrationAssessment {
        let chain = try WalkCalibration.uncalibrated(config).resolve()
        let start = recording.truth.filter { $0.device == device }.map(\.time).min() ?? recording.end
        let whole = [start...max(start, recording.end)]
        let before = try InProcessRun.replay(chain: WalkCalibration.uncalibrated(config), recording: recording).reported
        let after = try InProcessRun.replay(chain: WalkCalibration.calibrated(config, with: calibration), recording: recording).reported
        let split = WalkFolds.split(samples, parts: parts)
        var heldOut: [[ReportedTransition]] = []
        for fold in split?.folds ?? [] {
            let learnt = WalkCalibration.learn(chain: chain, samples: samples, excluding: fold)
            heldOut.append(try InProcessRun.replay(chain: WalkCalibration.calibrated(config, with: learnt), recording: recording).reported)
        }
        var stores: [StoreFigures] = []
        for store in calibration.stores {
            let major = StoreNumber(store.major)
            guard let index = chain.storeIndex[major] else { continue }
            func score(_ reported: [ReportedTransition], _ spans: [ClosedRange<Int64>]) -> EvaluationReport {
                WalkCalibration.score(truth: recording.truth, reported: reported, device: device, store: major, spans: spans)
            }
            let counts = chain.stores[index].sections.map { s in (chain.sections[s].minor, samples.filter { $0.section == s }.count) }
            let outside = samples.filter { $0.place == .outside(store: index) }.count
            var figures = StoreFigures(major: major, baseline: chain.tuning.rule, sectionSamples: counts, outsideSamples: outside,
                                       walk: (score(before, whole), score(after, whole)), heldOut: nil)
            if let folds = split?.folds {
                figures.heldOut = (EvaluationReport.pooled(folds.map { score(before, $0) }),
                                   EvaluationReport.pooled(zip(folds, heldOut).map { score($1, $0) }))
            }
            stores.append(figures)
        }
        return CalibrationAssessment(stores: stores, heldOutMethod: split?.method)
    }

    /// What `beacon-aggregator calibrate` prints: per store, the figures before → after, and a
    /// warning for each section the walk hardly visited.
    public func lines() -> [String] {
        var lines: [String] = []
        for store in stores {
            let rule = store.baseline.rawValue
            lines.append("store \(store.major), on the walk itself (learnt and scored on the same data: optimistic):")
            lines.append(contentsOf: Self.comparison(store.walk.before, store.walk.after, baseline: rule))
            if let heldOut = store.heldOut, let method = heldOutMethod {
                lines.append("store \(store.major), held out (\(method)): what to expect on other days:")
                lines.append(contentsOf: Self.comparison(heldOut.before, heldOut.after, baseline: rule))
            } else {
                lines.append("store \(store.major): the walk is too short to hold part of it out; record a second walk and compare with beacon-aggregator replay and beacon-sim evaluate")
            }
            for (minor, samples) in store.sectionSamples where samples < Self.thinSection {
                let seconds = Double(samples) * Double(WalkSampler.interval) / 1000
                lines.append("warning: store \(store.major) section \(minor): \(samples) samples (\(String(format: "%.0f", seconds)) s) — walk it for at least \(Self.thinSection / 2) s; \(samples == 0 ? "nobody will be placed there" : "its fingerprints are rough")")
            }
            if store.outsideSamples < FingerprintFit.minimumOutside {
                lines.append("note: store \(store.major): \(store.outsideSamples) samples outside the door while its gateways heard the tag — no outside fingerprint; exits stay the silence rule's and the street test's. To have them decided while a shopper outside is still heard, walk out and stand outside for a minute (docs/CALIBRATION.md)")
            } else if store.outsideSamples < Self.thinSection {
                lines.append("warning: store \(store.major) outside: \(store.outsideSamples) samples — stand outside for at least \(Self.thinSection / 2) s; its outside fingerprint is rough")
            }
        }
        return lines
    }

    /// Section accuracy, section enters per true change, change delay, and the store's exits when
    /// the truth has some, before → after.
    static func comparison(_ before: EvaluationReport, _ after: EvaluationReport, baseline: String) -> [String] {
        sectionLines(before, after, baseline: baseline) + exitLines(before, after)
    }

    /// Two lines on leaving the store, when the spans scored hold an exit: exits missed and their
    /// delay p50/p95; entries missed, false exits and entries.
    static func exitLines(_ before: EvaluationReport, _ after: EvaluationReport) -> [String] {
        let exits = before.missedExits + before.exitLatencies.count
        guard exits > 0 else { return [] }
        func delay(_ r: EvaluationReport) -> String {
            let p50 = EvaluationReport.percentile(r.exitLatencies, 50), p95 = EvaluationReport.percentile(r.exitLatencies, 95)
            return "\(p50.map { String(format: "%.1f", $0) } ?? "-")/\(p95.map { String(format: "%.1f", $0) } ?? "-") s"
        }
        let enters = before.missedEnters + before.enterLatencies.count
        return [
            "  store exits missed        \(before.missedExits) → \(after.missedExits) of \(exits); delay p50/p95 \(delay(before)) → \(delay(after))",
            "  entries missed            \(before.missedEnters) → \(after.missedEnters) of \(enters); false exits \(before.falseExits) → \(after.falseExits), false entries \(before.falseEnters) → \(after.falseEnters)",
        ]
    }

    /// Three lines: section accuracy, section enters per true change, change delay, before → after.
    static func sectionLines(_ before: EvaluationReport, _ after: EvaluationReport, baseline: String) -> [String] {
        func percent(_ r: EvaluationReport) -> String { r.deviceHours > 0 ? String(format: "%.1f %%", r.sectionAccuracy * 100) : "-" }
        func enters(_ r: EvaluationReport) -> String { r.sectionEntersPerTrueChange.map { String(format: "%.2f", $0) } ?? "-" }
        func delay(_ r: EvaluationReport) -> String {
            let p50 = EvaluationReport.percentile(r.sectionChangeLatencies, 50), p95 = EvaluationReport.percentile(r.sectionChangeLatencies, 95)
            return "\(p50.map { String(format: "%.1f", $0) } ?? "-")/\(p95.map { String(format: "%.1f", $0) } ?? "-") s"
        }
        let points = (after.sectionAccuracy - before.sectionAccuracy) * 100
        let accuracy = "  section accuracy          \(percent(before)) → \(percent(after)) (\(String(format: "%+.1f", points)) points; \(baseline) → fingerprint)"
        guard before.trueSectionChanges > 0 else {
            return [accuracy, "  (no section change lies inside the spans scored: see the walk's own figures for changes)"]
        }
        return [
            accuracy,
            "  section enters per change \(enters(before)) → \(enters(after)) (\(before.trueSectionChanges) true changes; 1 is ideal)",
            "  change delay p50/p95      \(delay(before)) → \(delay(after))",
        ]
    }
}
