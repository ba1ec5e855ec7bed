extension EvaluationReport {
    /// The reports of several disjoint scored periods (the folds of a cross-validation) as one:
    /// accuracies weighted by their in-store time, delays and counts put together.
    public static func pooled(_ reports: [EvaluationReport]) -> EvaluationReport {
        var pooled = EvaluationReport()
        let hours = reports.reduce(0) { $0 + $1.deviceHours }
        let settledHours = reports.reduce(0) { $0 + $1.deviceHours * (1 - $1.settlingShare) }
        for r in reports {
            if hours > 0 {
                pooled.sectionAccuracy += r.sectionAccuracy * r.deviceHours / hours
                pooled.storeAccuracy += r.storeAccuracy * r.deviceHours / hours
                pooled.settlingShare += r.settlingShare * r.deviceHours / hours
            }
            if settledHours > 0 {
                pooled.settledSectionAccuracy += r.settledSectionAccuracy * r.deviceHours * (1 - r.settlingShare) / settledHours
            }
            pooled.sectionChangeLatencies += r.sectionChangeLatencies
            pooled.missedSectionChanges += r.missedSectionChanges
            pooled.enterLatencies += r.enterLatencies
            pooled.exitLatencies += r.exitLatencies
            pooled.missedEnters += r.missedEnters
            pooled.missedExits += r.missedExits
            pooled.falseEnters += r.falseEnters
            pooled.falseExits += r.falseExits
            pooled.flaps += r.flaps
            pooled.flapReturns += r.flapReturns
            pooled.flapsBack += r.flapsBack
            pooled.earlyEnterLeads += r.earlyEnterLeads
            pooled.confidence.add(r.confidence)
            pooled.sectionEnters += r.sectionEnters
        }
        pooled.deviceHours = hours
        return pooled
    }
}
