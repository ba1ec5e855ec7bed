import BeaconWire

/// A region event as the page's feed and the API show it (the wire's ``RegionEvent``, flattened).
struct EventView: Codable, Sendable, Equatable {
    var kind: String
    var scope: String
    var major: UInt16
    var minor: UInt16?
    var dev: String
    var storeName: String
    var sectionName: String?
    /// Event time, Unix ms.
    var t: Int64
    var fromMinor: UInt16?
    var dwellMs: Int64?
    var proximity: String
    var seq: UInt64

    /// The view of `event`.
    init(_ event: RegionEvent) {
        kind = event.kind.rawValue
        scope = event.region.name
        major = event.region.store
        minor = event.region.section
        dev = event.device.rawValue
        storeName = event.storeName
        sectionName = event.sectionName
        t = event.time
        fromMinor = event.fromSection
        dwellMs = event.dwellMilliseconds
        proximity = event.proximity.rawValue
        seq = event.sequence
    }
}
