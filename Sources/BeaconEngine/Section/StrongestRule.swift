/// The `strongest` rule: the section of the gateway with the strongest mean RSSI over the last
/// `window_s` seconds, at once — the simple rule peers ship (a moving average per receiver, the
/// strongest receiver's room). The baseline every other rule is measured against; it has no
/// hysteresis, so it follows every swap of the strongest gateway.
struct StrongestRule: SectionRule {
    /// The device's sightings within the window, oldest first.
    struct DeviceState: Sendable {
        var readings: [SectionSighting] = []
    }

    /// The window, ms.
    let window: Int64

    init(chain: Chain) {
        window = Int64(chain.tuning.windowSeconds * 1000)
    }

    var initialState: DeviceState { DeviceState() }
    var weighsEveryLink: Bool { false }
    var hearsEverySighting: Bool { true }

    func heard(_ state: inout DeviceState, _ sighting: SectionSighting) {
        state.readings.append(sighting)
        // Sightings arrive per gateway in order, not across gateways: drop by age, not position.
        let newest = state.readings.reduce(sighting.time) { max($0, $1.time) }
        state.readings.removeAll { newest - $0.time > window }
    }

    func decide(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        guard let strongest = strongestSection(state, store: evidence.store, at: time) ?? evidence.strongest?.section else { return .stay }
        return strongest == evidence.current ? .stay : .move(to: strongest)
    }

    func enter(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        var first = evidence
        first.current = nil
        return decide(&state, evidence: first, at: time)
    }

    func moved(_ state: inout DeviceState, at time: EventTime) {}
    func stopWatching(_ state: inout DeviceState) {}
    func isWatching(_ state: DeviceState) -> Bool { false }

    /// The section of the store's gateway with the strongest mean over (`time` − window, `time`].
    private func strongestSection(_ state: DeviceState, store: Int, at time: EventTime) -> Int? {
        var sums: [Int32: (sum: Double, count: Int, section: Int32)] = [:]
        for reading in state.readings where Int(reading.store) == store && reading.time <= time && time - reading.time < window {
            let entry = sums[reading.gateway] ?? (0, 0, reading.section)
            sums[reading.gateway] = (entry.sum + reading.rssi, entry.count + 1, reading.section)
        }
        let best = sums.max { a, b in
            let (x, y) = (a.value.sum / Double(a.value.count), b.value.sum / Double(b.value.count))
            return x != y ? x < y : a.key > b.key
        }
        return best.map { Int($0.value.section) }
    }
}
