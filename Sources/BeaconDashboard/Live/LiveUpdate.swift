import BeaconCore
import BeaconWire

/// What one message changed, for the open pages.
enum LiveUpdate: Sendable, Equatable {
    /// A store's or section's count (sent to the pages at once).
    case occupancy(Occupancy)
    /// A region event (sent at once, for the feed).
    case event(RegionEvent)
    /// A store's layout arrived or changed (the pages fetch the stores again).
    case layout(StoreNumber)
    /// A gateway's or an aggregator's status (the health panel; sent at most once per interval).
    case health
    /// A device's state (kept for look-ups; not pushed).
    case device
}
