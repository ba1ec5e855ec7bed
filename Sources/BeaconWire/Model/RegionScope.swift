public import BeaconCore

/// A region below the chain: a whole store (Core Location's UUID+major) or one section of it
/// (UUID+major+minor). On the wire it is `"major"` with an optional `"minor"`, and in topics one or
/// two levels (`events/12/enter`, `events/12/3/enter`).
public enum RegionScope: Hashable, Sendable, CustomStringConvertible {
    /// The whole store (major).
    case store(StoreNumber)
    /// One section (major + minor).
    case section(SectionRef)

    /// The store the region is in.
    public var store: StoreNumber {
        switch self {
        case .store(let store): store
        case .section(let ref): ref.store
        }
    }

    /// The section number, or `nil` for a whole store.
    public var section: SectionNumber? {
        switch self {
        case .store: nil
        case .section(let ref): ref.section
        }
    }

    /// The scope's name on the wire: `store` or `section`.
    public var name: String {
        switch self {
        case .store: "store"
        case .section: "section"
        }
    }

    public var description: String {
        switch self {
        case .store(let store): "store \(store)"
        case .section(let ref): "section \(ref)"
        }
    }
}

/// Entering or leaving a region: Core Location's `didEnterRegion` / `didExitRegion`.
public enum RegionTransition: String, Hashable, Sendable, CaseIterable {
    /// The device is now inside the region.
    case enter
    /// The device has left the region.
    case exit
}

/// Whether a gateway or aggregator is up; `offline` is also its MQTT Last Will.
public enum Availability: String, Hashable, Sendable, CaseIterable {
    /// Connected and working.
    case online
    /// Shut down, or (as the broker's Last Will) gone without saying so.
    case offline
}
