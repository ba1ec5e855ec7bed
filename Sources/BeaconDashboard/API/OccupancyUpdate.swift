import BeaconWire

/// A count as the event stream sends it (`event: occupancy`): the store, the section for a
/// section's count, the count and its event time.
struct OccupancyUpdate: Codable, Sendable, Equatable {
    var major: UInt16
    var minor: UInt16?
    var count: Int
    var t: Int64

    /// The update for `occupancy`.
    init(_ occupancy: Occupancy) {
        major = occupancy.region.store
        minor = occupancy.region.section
        count = occupancy.count
        t = occupancy.time
    }
}
