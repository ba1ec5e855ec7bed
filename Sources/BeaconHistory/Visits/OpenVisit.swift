public import BeaconCore

/// A store visit the book holds open: its identity as stored (device key, store, enter), what
/// is known of it since, and the section visit open inside it.
public struct OpenVisit: Sendable, Hashable {
    /// The stored device key, fixed at the enter (the pseudonym of the enter's period).
    public var device: String
    /// The store.
    public var store: StoreNumber
    /// When it began, Unix ms.
    public var enter: Int64
    /// How its enter became known.
    public var opening: VisitOpening
    /// The latest time the device was known in the store, Unix ms.
    public var lastSeen: Int64
    /// The highest event `seq` applied to it; nil for a visit read back from the database (the
    /// aggregator's `seq` is not stored).
    public var lastSequence: UInt64?
    /// The section visit open inside it.
    public var section: OpenSection?

    /// An open visit; see each property.
    public init(
        device: String, store: StoreNumber, enter: Int64, opening: VisitOpening, lastSeen: Int64, lastSequence: UInt64? = nil,
        section: OpenSection? = nil
    ) {
        self.device = device
        self.store = store
        self.enter = enter
        self.opening = opening
        self.lastSeen = lastSeen
        self.lastSequence = lastSequence
        self.section = section
    }

    /// Its record while open.
    var record: StoreVisitRecord {
        StoreVisitRecord(device: device, store: store, enter: enter, opening: opening, lastSeen: lastSeen)
    }

    /// Its record closed at `time` by `closing`.
    func closedRecord(at time: Int64, by closing: VisitClosing) -> StoreVisitRecord {
        StoreVisitRecord(device: device, store: store, enter: enter, exit: time, opening: opening, closing: closing, lastSeen: max(lastSeen, time))
    }
}

/// A section visit held open inside a store visit.
public struct OpenSection: Sendable, Hashable {
    /// The section (minor) of the visit's store.
    public var section: SectionNumber
    /// When it began, Unix ms.
    public var enter: Int64
    /// Where the device came from (`from_minor`), if known.
    public var fromSection: SectionNumber?
    /// How its enter became known.
    public var opening: VisitOpening

    /// An open section visit; see each property.
    public init(section: SectionNumber, enter: Int64, fromSection: SectionNumber? = nil, opening: VisitOpening) {
        self.section = section
        self.enter = enter
        self.fromSection = fromSection
        self.opening = opening
    }

    /// Its record in store `store` for `device`, closed at `exit` by `closing` when given.
    func record(device: String, store: StoreNumber, exit: Int64? = nil, closing: VisitClosing? = nil) -> SectionVisitRecord {
        SectionVisitRecord(
            device: device, section: SectionRef(store: store, section: section), enter: enter, exit: exit, fromSection: fromSection,
            opening: opening, closing: closing)
    }
}
