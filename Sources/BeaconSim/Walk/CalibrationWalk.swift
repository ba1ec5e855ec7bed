public import BeaconCore
public import BeaconEngine

/// A calibration walk for the simulator, as docs/CALIBRATION.md (section 2) asks a person to
/// make one: a tag through every section of a store twice (the second round in the other order),
/// a minute walking all over each, out of the street door for a minute after each round and back
/// in; then out and on to the next store.
public struct CalibrationWalk: Sendable, Equatable {
    /// The stores walked, in order (majors).
    public var stores: [StoreNumber]
    /// The tag's number: its device id is `ib-<site UUID>-1-<tag>` (``device(in:)``), which no
    /// shopper's or staff member's id is.
    public var tag: UInt16 = 1
    /// How much louder the tag is than the typical phone, dB (negative: quieter).
    public var tagOffset = 0.0
    /// Time spent walking all over each section on each visit, seconds.
    public var sectionSeconds = 60.0
    /// Time spent outside the street door on each stay, seconds.
    public var outsideSeconds = 60.0
    /// Walking speed, m/s: a shopper's pace.
    public var speed = 1.0

    /// The tag's iBeacon major: shoppers' phones have 1000 and up.
    public static let tagMajor = 1

    /// A walk through `stores`, in that order.
    public init(stores: [StoreNumber]) {
        self.stores = stores
    }

    /// The tag's device id in `chain`.
    public func device(in chain: Chain) -> DeviceID {
        // The site UUID and these numbers always make a valid iBeacon id.
        try! DeviceID("ib-\(chain.siteUUID)-\(Self.tagMajor)-\(tag)")
    }
}

/// When a scheduled calibration walk is in each store (``Simulation/schedule(_:)``).
public struct WalkSchedule: Sendable, Equatable {
    /// One store's part of the walk.
    public struct Visit: Sendable, Equatable {
        /// The store.
        public var store: StoreNumber
        /// When the tag sets off towards its street door, Unix ms.
        public var start: Int64
        /// When it is out of the door and out of range again, Unix ms.
        public var end: Int64
    }

    /// The tag.
    public var device: DeviceID
    /// Its visits, in order.
    public var visits: [Visit]

    /// When the tag sets off, Unix ms.
    public var start: Int64 { visits.first?.start ?? 0 }
    /// When its last visit ends, Unix ms.
    public var end: Int64 { visits.last?.end ?? 0 }
}

/// A tag waiting to set off on its route through one store.
struct PendingTag: Sendable {
    /// When it sets off, Unix ms.
    var start: Int64
    /// The store's index in the chain.
    var store: Int
    /// Where it walks, starting where it sets off.
    var route: [Waypoint]
    /// The device it is.
    var device: DeviceID
    /// Its advertising interval, seconds, and its radio in this store.
    var advertInterval: Double
    var radio: DeviceRadio
    /// Its own stream for what happens on the way (adverts, shadowing).
    var random: SeededRandom
    /// Walking speed, m/s.
    var speed: Double
}
