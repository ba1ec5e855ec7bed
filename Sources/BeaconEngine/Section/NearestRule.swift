/// The `nearest` rule: the section of the strongest single last report, at once — what most
/// hobby presence systems do. Kept as a baseline; not for production.
struct NearestRule: SectionRule {
    /// The rule remembers nothing.
    struct DeviceState: Sendable {}

    var initialState: DeviceState { DeviceState() }
    var weighsEveryLink: Bool { false }

    func decide(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        guard let strongest = evidence.strongest else { return .stay }
        guard let current = evidence.current else { return .move(to: strongest.section) }
        if let nearest = evidence.nearest, nearest != current { return .move(to: nearest) }
        return .stay
    }

    func moved(_ state: inout DeviceState, at time: EventTime) {}
    func stopWatching(_ state: inout DeviceState) {}
    func isWatching(_ state: DeviceState) -> Bool { false }
}
