import BeaconCore

/// Scores reported transitions against the truth.
///
/// Matching windows: a true store entry is matched by the first unmatched reported entry of the
/// same store 10 s before to 60 s after it, and before the device truly leaves that store again;
/// an exit likewise up to 120 s after, and before it truly comes back; a section change by
/// the first report of entering that section from 5 s before until the device's next true change
/// (at most 30 s). Unmatched truths are missed. A reported store entry (exit) is false when no true
/// entry (exit) of that store happened 60 s (120 s) before to 10 s after it; a reported section
/// change no true move into that section explains is a flap. Truths too close to the end of the
/// run to be matched are not counted.
///
/// Unscored spans (``TruthPlace/unscored``): their time is not scored, a report made in one is
/// never charged, and a change into or out of one is no change to detect. Where the truth could
/// have changed unseen, the rule may report that change: an unscored span counts as a possible
/// entry into and exit from every store at its start and end, so a report within the windows
/// above of either is not false; a section change into the place the truth resumes in is no
/// flap; and a report up to 5 s (sections) or 10 s (stores) before an unscored span starts is
/// not charged either (it may be early for a change made in it).
public enum Evaluator {
    /// Section stays shorter than this are passing through, not a change to detect, ms.
    public static let minimumStay: Int64 = 5000
    /// How long after a true change the reported state is counted as settling, not settled, ms:
    /// about the section-change latency the issue allows (3 s).
    public static let settleTime: Int64 = 3000
    /// How far ahead of the true change a reported section enter may come and still be right, ms.
    public static let earlyWindow: Int64 = 5000
    /// How long after a true section change a report of it may come and still be matched, ms.
    public static let lateWindow: Int64 = 30_000

    /// Scores `reported` against `truth` over the period up to `end`, Unix ms: reports after it
    /// are ignored, and truths too close to it to be matched are not counted.
    public static func evaluate(truth: [TruthChange], reported: [ReportedTransition], end: Int64) -> EvaluationReport {
        var report = EvaluationReport()
        // The scored period ends at `end`: later reports would be false or flaps against hours
        // that are not counted.
        let reported = reported.filter { $0.time <= end }
        let truthByDevice = Dictionary(grouping: truth.sorted { $0.time < $1.time }, by: \.device)
        let reportedByDevice = Dictionary(grouping: reported.sorted { ($0.time, $0.sequence) < ($1.time, $1.sequence) }, by: \.device)
        var time = TimeShares()
        for device in Set(truthByDevice.keys).union(reportedByDevice.keys).sorted() {
            var score = DeviceScore(truths: truthByDevice[device] ?? [], reports: reportedByDevice[device] ?? [], end: end)
            score.addTime(to: &time)
            score.matchTruths(into: &report)
            score.chargeUnexplainedReports(into: &report)
        }
        time.fill(&report)
        report.confidence = ConfidenceReliability(truth: truth, reported: reported, end: end)
        return report
    }

    /// In-store time, ms, summed over devices: how much of it the reports got right, and how much
    /// of it is past the settling time.
    struct TimeShares {
        var inStore: Int64 = 0, sectionRight: Int64 = 0, storeRight: Int64 = 0
        var settled: Int64 = 0, settledRight: Int64 = 0

        /// The accuracies and device-hours of `report`.
        func fill(_ report: inout EvaluationReport) {
            report.deviceHours = Double(inStore) / 3_600_000
            report.sectionAccuracy = inStore > 0 ? Double(sectionRight) / Double(inStore) : 0
            report.storeAccuracy = inStore > 0 ? Double(storeRight) / Double(inStore) : 0
            report.settledSectionAccuracy = settled > 0 ? Double(settledRight) / Double(settled) : 0
            report.settlingShare = inStore > 0 ? Double(inStore - settled) / Double(inStore) : 0
        }
    }
}
