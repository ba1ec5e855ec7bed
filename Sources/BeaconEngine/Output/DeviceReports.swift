import BeaconCore

/// What the engine last published of each device, by track: its sequence over transitions and
/// state changes, and the proximity, accuracy and confidence its events carry.
struct DeviceReports: Sendable {
    /// One device's.
    struct Report: Sendable {
        /// Per-device sequence over transitions and state changes.
        var sequence: UInt64 = 0
        /// Proximity to the best gateway.
        var proximity: Proximity = .unknown
        /// Estimated distance to the best gateway, metres, when known.
        var accuracy: Double?
        /// How sure the rule is, 0…1.
        var confidence = 0.0
    }

    /// Per track.
    private(set) var reports: [Report] = []

    /// The device on `track`'s.
    subscript(track: Int) -> Report { reports[track] }

    /// Track `track` now holds a device not reported yet.
    mutating func start(_ track: Int) {
        if track < reports.count {
            reports[track] = Report()
        } else {
            reports.append(Report())
        }
    }

    /// The next sequence number of the device on `track`.
    mutating func nextSequence(_ track: Int) -> UInt64 {
        reports[track].sequence += 1
        return reports[track].sequence
    }

    /// Continues the device's sequence from a previous run's.
    mutating func restore(_ track: Int, sequence: UInt64) { reports[track].sequence = sequence }

    /// Records how near the device is to its best gateway.
    mutating func locate(_ track: Int, proximity: Proximity, accuracy: Double?) {
        reports[track].proximity = proximity
        reports[track].accuracy = accuracy
    }

    /// Records the rule's confidence.
    mutating func trust(_ track: Int, _ confidence: Double) { reports[track].confidence = confidence }
}
