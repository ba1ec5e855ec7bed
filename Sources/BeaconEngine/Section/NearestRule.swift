/// The `nearest` rule: the section of the strongest single last report, at once — what most
/// hobby presence systems do. Kept as a baseline; not for production.
struct NearestRule: SectionRule {
    var reads: SectionEvidence.Extras { [] }

    /// The rule remembers nothing.
    mutating func start(_ track: Int) {}

    func decide(_ track: Int, _ evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        guard let strongest = evidence.strongest else { return .stay }
        guard let current = evidence.current else { return .move(to: strongest.section) }
        if let nearest = evidence.nearest, nearest != current { return .move(to: nearest) }
        return .stay
    }

    func endVisit(_ track: Int) {}
    func isWatching(_ track: Int) -> Bool { false }
}
