/// The `strongest` rule: the section of the gateway with the strongest mean RSSI over the last
/// `window_s` seconds, at once — the simple rule peers ship (a moving average per receiver, the
/// strongest receiver's room). The baseline every other rule is measured against; it has no
/// hysteresis, so it follows every swap of the strongest gateway. The means over the window are
/// the engine's (``RecentSightings``); the rule remembers nothing.
struct StrongestRule: SectionRule {
    var reads: SectionEvidence.Extras { .window }

    mutating func start(_ track: Int) {}

    func decide(_ track: Int, _ evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        guard let strongest = evidence.windowStrongest ?? evidence.strongest?.section else { return .stay }
        return strongest == evidence.current ? .stay : .move(to: strongest)
    }

    func endVisit(_ track: Int) {}
    func isWatching(_ track: Int) -> Bool { false }
}
