public import BeaconCore

/// How a visit's enter became known.
public enum VisitOpening: String, Sendable, Hashable, CaseIterable {
    /// Its enter event.
    case enter
    /// The device's state said it was inside (its `store_since` / `section_since`): the enter
    /// was published before beacon-history listened, or the region publishes no enters.
    case state
    /// A section enter of a store visit whose store enter never came: the store visit starts then.
    case section
    /// Only its exit event arrived: the enter is the exit's time less its `dwell_ms`.
    case exit
}

/// How a visit's exit became known, from the most certain to the least. A visit closed one way
/// is closed again only by a more certain way (``rank``), so a late exit event corrects a guess,
/// and nothing closes a visit twice.
public enum VisitClosing: String, Sendable, Hashable, CaseIterable {
    /// Its exit event: the exit time the aggregator decided.
    case exit
    /// The device's state said `outside` (its `since`: the exit time the aggregator decided).
    case outside
    /// The device's state said `unknown` (the gateways that could hear it went down): closed at
    /// the state's `since`, the last moment it was known to be inside.
    case unknown
    /// The device's state placed it in another store: closed when it entered that one.
    case elsewhere
    /// A later visit of the same device to the same store (or section) began before its exit
    /// came: a store visit is closed when the device was last known in it, a section visit when
    /// the next section began.
    case superseded
    /// Nothing was heard of the visit for ``VisitBook/Limits/staleAfter``: closed when it was last
    /// known.
    case stale

    /// How certain the exit time is: 3 exact, 2 a state's time, 1 a bound.
    public var rank: Int {
        switch self {
        case .exit, .outside: 3
        case .unknown: 2
        case .elsewhere, .superseded, .stale: 1
        }
    }
}

/// A store visit as it is written: opened (no exit yet) or closed. Identified by device, store
/// and enter time, so writing the same visit twice changes nothing.
public struct StoreVisitRecord: Sendable, Hashable {
    /// The stored device key (pseudonym or raw id, see ``DeviceKeying``).
    public var device: String
    /// The store (major).
    public var store: StoreNumber
    /// When the visit began, Unix ms.
    public var enter: Int64
    /// When it ended, Unix ms; nil while open.
    public var exit: Int64?
    /// How the enter became known.
    public var opening: VisitOpening
    /// How the exit became known; nil while open.
    public var closing: VisitClosing?
    /// The latest time the device was known in the store, Unix ms (where a stale visit is closed).
    public var lastSeen: Int64

    /// A store visit record; see each property.
    public init(
        device: String, store: StoreNumber, enter: Int64, exit: Int64? = nil, opening: VisitOpening, closing: VisitClosing? = nil,
        lastSeen: Int64
    ) {
        self.device = device
        self.store = store
        self.enter = enter
        self.exit = exit
        self.opening = opening
        self.closing = closing
        self.lastSeen = lastSeen
    }
}

/// A section visit as it is written: opened or closed, identified by device, section and enter
/// time.
public struct SectionVisitRecord: Sendable, Hashable {
    /// The stored device key.
    public var device: String
    /// The section (store and minor).
    public var section: SectionRef
    /// When the visit began, Unix ms.
    public var enter: Int64
    /// When it ended, Unix ms; nil while open.
    public var exit: Int64?
    /// The section of the same store the device came from (the enter event's `from_minor`), if
    /// known: what the flows count.
    public var fromSection: SectionNumber?
    /// How the enter became known.
    public var opening: VisitOpening
    /// How the exit became known; nil while open.
    public var closing: VisitClosing?

    /// A section visit record; see each property.
    public init(
        device: String, section: SectionRef, enter: Int64, exit: Int64? = nil, fromSection: SectionNumber? = nil,
        opening: VisitOpening, closing: VisitClosing? = nil
    ) {
        self.device = device
        self.section = section
        self.enter = enter
        self.exit = exit
        self.fromSection = fromSection
        self.opening = opening
        self.closing = closing
    }
}

/// Everything one flush writes, in one transaction: visit records in the order they were made
/// (a later record of the same visit refines an earlier one) and the names of stores and sections
/// as the events gave them.
public struct HistoryBatch: Sendable, Equatable {
    /// Store visits opened, refreshed or closed.
    public var storeVisits: [StoreVisitRecord] = []
    /// Section visits opened or closed.
    public var sectionVisits: [SectionVisitRecord] = []
    /// Store names that are new or changed.
    public var storeNames: [StoreNumber: String] = [:]
    /// Section names that are new or changed.
    public var sectionNames: [SectionRef: String] = [:]

    /// An empty batch.
    public init() {}

    /// Whether there is nothing to write.
    public var isEmpty: Bool { storeVisits.isEmpty && sectionVisits.isEmpty && storeNames.isEmpty && sectionNames.isEmpty }

    /// How many records it holds (what the writer bounds).
    public var count: Int { storeVisits.count + sectionVisits.count + storeNames.count + sectionNames.count }

    /// Appends `other`'s records after these.
    public mutating func append(_ other: HistoryBatch) {
        storeVisits += other.storeVisits
        sectionVisits += other.sectionVisits
        storeNames.merge(other.storeNames) { $1 }
        sectionNames.merge(other.sectionNames) { $1 }
    }
}
