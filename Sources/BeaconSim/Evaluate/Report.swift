/// The evaluation table `beacon-sim evaluate` prints.
public enum Report {
    /// Column headers, aligned with ``row(_:_:wide:)``.
    public static let header = "rule                      section%  settled%  settling%  store%  change p50/p95 s  enter p50/p95 s  exit p50/p95 s  missed chg/ent/exit  false ent/exit  flaps/dev-h"

    /// ``header`` with the section-enter, flap and early-entry columns after the standard ones
    /// (`beacon-sim evaluate --wide`).
    public static let wideHeader = header + "  enters/chg  true chg  returns  flaps back  early ent  lead p50 s"

    /// One row: the rule's name and its scores; `wide` adds, after the standard columns, the
    /// reported section enters per true section change, the true changes scored, the flaps that
    /// return to the true section and those back across a boundary just crossed, and the store
    /// entries reported early (from outside) with their median lead.
    public static func row(_ name: String, _ r: EvaluationReport, wide: Bool = false) -> String {
        func s(_ v: Double?) -> String { v.map { String(format: "%.1f", $0) } ?? "-" }
        func pair(_ values: [Int64]) -> String {
            "\(s(EvaluationReport.percentile(values, 50)))/\(s(EvaluationReport.percentile(values, 95)))"
        }
        var columns = [
            name.padding(toLength: 25, withPad: " ", startingAt: 0),
            // No in-store time: nothing to score, not 0 %.
            (r.deviceHours > 0 ? String(format: "%.1f", r.sectionAccuracy * 100) : "-").leftPadded(8),
            (r.deviceHours > 0 ? String(format: "%.1f", r.settledSectionAccuracy * 100) : "-").leftPadded(9),
            (r.deviceHours > 0 ? String(format: "%.1f", r.settlingShare * 100) : "-").leftPadded(10),
            (r.deviceHours > 0 ? String(format: "%.1f", r.storeAccuracy * 100) : "-").leftPadded(7),
            pair(r.sectionChangeLatencies).leftPadded(17),
            pair(r.enterLatencies).leftPadded(16),
            pair(r.exitLatencies).leftPadded(15),
            "\(r.missedSectionChanges)/\(r.missedEnters)/\(r.missedExits)".leftPadded(20),
            "\(r.falseEnters)/\(r.falseExits)".leftPadded(15),
            String(format: "%12.2f", r.flapsPerDeviceHour),
        ]
        if wide {
            columns.append((r.sectionEntersPerTrueChange.map { String(format: "%.2f", $0) } ?? "-").leftPadded(11))
            columns.append(String(r.trueSectionChanges).leftPadded(9))
            columns.append(String(r.flapReturns).leftPadded(8))
            columns.append(String(r.flapsBack).leftPadded(11))
            columns.append(String(r.earlyEnterLeads.count).leftPadded(10))
            columns.append(s(EvaluationReport.percentile(r.earlyEnterLeads, 50)).leftPadded(11))
        }
        return columns.joined(separator: " ")
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}

import Foundation
