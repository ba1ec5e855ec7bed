/// Where a device is: Core Location's region state for it, with what the state refers to.
enum Presence: Sendable {
    /// In no store: `departure` says which store it left last, and when (nil: never inside one
    /// in this process, or forgotten since).
    case outside(Departure?)
    /// In `visit`'s store, since `since` (its entry, or its return from ``unknown(_:since:)``).
    case inside(Visit, since: EventTime)
    /// In `visit`'s store as far as anyone knows, since `since`: the gateways that could hear
    /// it are down.
    case unknown(Visit, since: EventTime)

    /// The public name of the state.
    var state: PresenceState {
        switch self {
        case .outside: .outside
        case .inside: .inside
        case .unknown: .unknown
        }
    }

    /// The visit, when the device is in a store (inside or unknown).
    var visit: Visit? {
        switch self {
        case .inside(let visit, _), .unknown(let visit, _): visit
        case .outside: nil
        }
    }

    /// When the current state began; nil for a device never inside.
    var since: EventTime? {
        switch self {
        case .inside(_, let since), .unknown(_, let since): since
        case .outside(let departure): departure?.time
        }
    }

    /// The store it is in, or left last.
    var store: Int? {
        switch self {
        case .inside(let visit, _), .unknown(let visit, _): visit.store
        case .outside(let departure): departure?.store
        }
    }

    /// The section it is in, or was in when it left its store.
    var section: Int? {
        switch self {
        case .inside(let visit, _), .unknown(let visit, _): visit.section?.index
        case .outside(let departure): departure?.section
        }
    }
}

/// One visit of a store.
struct Visit: Sendable {
    /// The store, an index into ``Chain/stores``.
    let store: Int
    /// When the device entered it.
    let since: EventTime
    /// The section it is in, and since when; nil before the first.
    var section: (index: Int, since: EventTime)?
}

/// How a device left its last store.
struct Departure: Sendable {
    /// The store, an index into ``Chain/stores``.
    let store: Int
    /// The section it was in then, if any.
    let section: Int?
    /// When it left.
    let time: EventTime
}
