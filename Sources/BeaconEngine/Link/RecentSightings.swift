/// Every device's sightings within the last `window_s` (the `strongest` rule's window), oldest
/// first, by track: per gateway, the mean of its calibrated reports over the window is what that
/// rule compares.
struct RecentSightings: Sendable {
    /// One calibrated report.
    struct Sighting: Sendable {
        /// Indices of the gateway, its section and its store.
        var gateway: Int32
        var section: Int32
        var store: Int32
        /// Calibrated RSSI, dBm.
        var rssi: Double
        /// The sighting's event time.
        var time: EventTime
    }

    /// Per track, its sightings within the window.
    private var sightings: [[Sighting]] = []
    /// `window_s`.
    let window: EventDuration

    init(window: EventDuration) { self.window = window }

    /// Track `track` now holds a device not heard yet.
    mutating func start(_ track: Int) {
        if track < sightings.count {
            sightings[track] = []
        } else {
            sightings.append(contentsOf: repeatElement([], count: track + 1 - sightings.count))
        }
    }

    /// Books a sighting of the device on `track`.
    mutating func note(_ track: Int, _ sighting: Sighting) {
        sightings[track].append(sighting)
        // Sightings arrive per gateway in order, not across gateways: drop by age, not position.
        let newest = sightings[track].reduce(sighting.time) { max($0, $1.time) }
        sightings[track].removeAll { newest - $0.time > window }
    }

    /// The section of `store`'s gateway with the strongest mean over (`time` − window, `time`]
    /// for the device on `track`; nil when none of them heard it then.
    func strongestSection(_ track: Int, store: Int, at time: EventTime) -> Int? {
        var sums: [Int32: (sum: Double, count: Int, section: Int32)] = [:]
        for reading in sightings[track] where Int(reading.store) == store && reading.time <= time && time - reading.time < window {
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
