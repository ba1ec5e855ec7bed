import BeaconWire

/// A device's retained state as `/api/devices/<id>` shows it (the wire's ``DeviceState``,
/// flattened): where it is, since when, how near and how sure.
struct DeviceView: Codable, Sendable, Equatable {
    var dev: String
    /// `inside`, `outside` or `unknown`.
    var state: String
    var major: UInt16?
    var minor: UInt16?
    var storeName: String?
    var sectionName: String?
    var since: Int64
    var storeSince: Int64?
    var sectionSince: Int64?
    var lastSeen: Int64
    var proximity: String
    var accuracy: Double?
    var confidence: Double
    var seq: UInt64

    /// The view of `state`.
    init(_ state: DeviceState) {
        dev = state.device.rawValue
        self.state = state.presence.rawValue
        major = state.region?.store
        minor = state.region?.section
        storeName = state.storeName
        sectionName = state.sectionName
        since = state.since
        storeSince = state.storeSince
        sectionSince = state.sectionSince
        lastSeen = state.lastSeen
        proximity = state.proximity.rawValue
        accuracy = state.accuracy
        confidence = state.confidence
        seq = state.sequence
    }
}
