public import BeaconCore
import BeaconEngine
import Foundation

extension CalibrationAssessment {
    /// What `beacon-aggregator calibrate` prints: per store, the figures before → after, a
    /// warning for each section the walk hardly visited, and the verdict.
    public func lines() -> [String] {
        var lines: [String] = []
        for store in stores {
            let rule = store.baseline.rawValue
            lines.append("store \(store.major), on the walk itself (learnt and scored on the same data: optimistic):")
            lines.append(contentsOf: Self.comparison(store.walk, baseline: rule))
            if let heldOut = store.heldOut, let method = heldOutMethod {
                lines.append("store \(store.major), held out (\(method)): what to expect on other days:")
                lines.append(contentsOf: Self.comparison(heldOut, baseline: rule))
            } else {
                lines.append("store \(store.major): the walk is too short to hold part of it out; record a second walk and compare with beacon-aggregator replay and beacon-sim evaluate")
            }
            if let traffic = store.traffic {
                lines.append(String(format: "store %d: its phones in the traffic: %+.1f dB against the tag (±%.1f dB; %d gateways, %d phones)",
                                    Int(store.major), traffic.offset, traffic.standardError, traffic.gateways, traffic.phones))
            }
            if let phones = store.otherPhones {
                let offsets = Self.listed(store.phoneOffsets.map { String(format: "%+d", $0) })
                let whose = store.traffic == nil ? "" : ": its phones' level, and 6 dB either side"
                lines.append("store \(store.major), held out, as other phones are heard (the same data \(offsets) dB\(whose)): what to expect for shoppers' phones:")
                lines.append(contentsOf: Self.comparison(phones, baseline: rule))
            }
            if let changes = store.trafficChanges, let line = Self.trafficLine(store.major, changes) { lines.append(line) }
            lines.append(contentsOf: warnings(store))
            lines.append(Self.verdictLine(store))
        }
        return lines
    }

    /// How restless each rule was with the traffic's phones, or nil when no phone was reported in
    /// the store: the section changes of the same phones, with how much the phones' own
    /// differences could make of the change (``TrafficChanges/Surplus``, what the verdict weighs),
    /// and per hour a phone was in the store.
    static func trafficLine(_ major: StoreNumber, _ comparison: TrafficComparison) -> String? {
        let before = comparison.before, after = comparison.after
        guard let rate = before.changesPerHour, let calibrated = after.changesPerHour else { return nil }
        var changes = "\(before.sectionChanges) → \(after.sectionChanges) section changes"
        if let surplus = comparison.surplus, before.sectionChanges > 0 {
            let share = 100 / Double(before.sectionChanges)
            changes += String(format: " of %d phones (%+.0f %% ± %.0f %% from phone to phone; ", surplus.phones, Double(surplus.changes) * share, surplus.standardError * share)
        } else {
            changes += " ("
        }
        return String(format: "store %d, on its traffic (no truth): %@%.0f → %.0f per phone-hour); back within a minute of leaving %d → %d (%.1f phone-hours)",
                      Int(major), changes, rate, calibrated, before.quickReturns, after.quickReturns, before.phoneHours)
    }

    /// `a and b`, `a, b and c`.
    static func listed(_ items: [String]) -> String {
        items.count <= 2 ? items.joined(separator: " and ") : items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
    }

    /// The stores whose calibration should be switched on.
    public var storesToSwitchOn: [StoreNumber] { stores.filter { $0.verdict == .switchOn }.map(\.major) }

    static func verdictLine(_ store: StoreFigures) -> String {
        switch store.verdict {
        case .switchOn:
            return "store \(store.major): switch it on: held out, the fingerprint rule is better than \(store.baseline.rawValue) for the tag and for other phones"
        case .keepDefault(let reason):
            return "store \(store.major): do not switch it on: \(reason); the chain keeps \(store.baseline.rawValue) for it. Walk again with a device like the ones you track, carried as they are, or with two tags (docs/CALIBRATION.md)"
        case .unknown:
            return "store \(store.major): do not switch it on yet: nothing held out says it is better; walk every section twice (docs/CALIBRATION.md)"
        }
    }

    func warnings(_ store: StoreFigures) -> [String] {
        var lines: [String] = []
        for (minor, samples) in store.sectionSamples where samples < Self.thinSection {
            let seconds = Double(samples) * Double(WalkSampler.interval) / 1000
            lines.append("warning: store \(store.major) section \(minor): \(samples) samples (\(String(format: "%.0f", seconds)) s) — walk it for at least \(Self.thinSection / 2) s; \(samples == 0 ? "nobody will be placed there" : "its fingerprints are rough")")
        }
        if store.outsideSamples < FingerprintFit.minimumOutside {
            lines.append("note: store \(store.major): \(store.outsideSamples) samples outside the door while its gateways heard the tag — no outside fingerprint; exits stay the silence rule's and the street test's. To have them decided while a shopper outside is still heard, walk out and stand outside for a minute (docs/CALIBRATION.md)")
        } else if store.outsideSamples < Self.thinSection {
            lines.append("warning: store \(store.major) outside: \(store.outsideSamples) samples — stand outside for at least \(Self.thinSection / 2) s; its outside fingerprint is rough")
        }
        if store.walkingChange == nil {
            lines.append("note: store \(store.major): too little walking seen to measure how fast the levels change (walking_change_db2_per_s) — the rule will count a standing phone's evidence as a walking one's; walk each section for a minute (docs/CALIBRATION.md)")
        }
        return lines
    }

    /// Section accuracy, section enters per true change, change delay, and the store's exits when
    /// the truth has some, before → after.
    static func comparison(_ c: Comparison, baseline: String) -> [String] {
        sectionLines(c.before, c.after, baseline: baseline) + exitLines(c.before, c.after)
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

    /// Fewer true section changes than this in the spans scored and their enters per change and
    /// delays are not printed: one flicker over one change reads as "8 enters per change".
    static let minimumChanges = 5

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
        guard before.trueSectionChanges >= minimumChanges else {
            let few = before.trueSectionChanges == 0 ? "no section change lies" : "only \(before.trueSectionChanges) section change(s) lie"
            return [accuracy, "  (\(few) inside the spans scored, too few to count enters by: see the walk's own figures for changes)"]
        }
        return [
            accuracy,
            "  section enters per change \(enters(before)) → \(enters(after)) (\(before.trueSectionChanges) true changes; 1 is ideal)",
            "  change delay p50/p95      \(delay(before)) → \(delay(after))",
        ]
    }
}
