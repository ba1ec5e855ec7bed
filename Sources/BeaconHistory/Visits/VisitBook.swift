import BeaconCore

/// The open visits of every device, and the one writer of them: events and device states go in,
/// visit records come out (into a ``HistoryBatch``), in the order the data flows.
///
/// A visit is identified by its device key, store (and section) and enter time, so writing it
/// twice changes nothing; repeats are dropped by (`dev`, `major`, `seq`) within
/// ``Limits/repeatWindow``; an input older than what the book holds for that device and store is
/// counted and ignored; a visit whose exit never comes is closed by the device's state (outside,
/// unknown, inside another store) or, failing everything, after ``Limits/staleAfter`` without
/// news. Pure: no clock, no database, no broker.
public struct VisitBook: Sendable {
    /// How long things are remembered.
    public struct Limits: Sendable, Equatable {
        /// How long an event's (`dev`, `major`, `seq`) is remembered to drop its repeats, ms of
        /// event time: "well under 10 minutes" (docs/WIRE.md).
        public var repeatWindow: Int64 = 300_000
        /// How long a visit stays open with no news of it before it is closed as stale, ms.
        public var staleAfter: Int64 = 12 * 3_600_000

        /// The defaults.
        public init() {}
    }

    /// What the book has seen, for the log.
    public struct Counters: Sendable, Equatable {
        /// Events applied, repeats included.
        public var events = 0
        /// Device states applied.
        public var states = 0
        /// Events dropped as repeats.
        public var repeats = 0
        /// Events and states older than what the book held for the device, ignored.
        public var outOfDate = 0
        /// Visits closed as stale.
        public var staleClosed = 0
    }

    /// What is stored in place of device ids.
    public let keying: DeviceKeying
    /// How long things are remembered.
    public let limits: Limits
    /// What it has seen.
    public private(set) var counters = Counters()

    /// Open visits per device and store.
    var open: [DeviceID: [StoreNumber: OpenVisit]] = [:]
    /// Visits read back from the database, not yet matched to a device (see ``restore(_:)``).
    var restored = RestoredVisits()
    private var repeats: RepeatFilter
    private var storeNames: [StoreNumber: String] = [:]
    private var sectionNames: [SectionRef: String] = [:]
    /// The newest event time seen, Unix ms: the clock of ``closeStale(into:)``.
    public private(set) var newest: Int64?

    /// An empty book storing devices as `keying` says.
    public init(keying: DeviceKeying, limits: Limits = Limits()) {
        self.keying = keying
        self.limits = limits
        self.repeats = RepeatFilter(window: limits.repeatWindow)
    }

    /// How many store visits are open (restored ones not yet matched included).
    public var openVisitCount: Int { open.values.reduce(0) { $0 + $1.count } + restored.count }

    /// The open visit of `device` in `store`, matching a restored one first if there is one.
    mutating func visit(of device: DeviceID, in store: StoreNumber) -> OpenVisit? {
        adoptRestored(device)
        return open[device]?[store]
    }

    /// Every open visit of `device`, by store.
    mutating func visits(of device: DeviceID) -> [StoreNumber: OpenVisit] {
        adoptRestored(device)
        return open[device] ?? [:]
    }

    /// Puts `visit` back as `device`'s open visit in its store.
    mutating func keep(_ visit: OpenVisit, of device: DeviceID) {
        open[device, default: [:]][visit.store] = visit
    }

    /// Opens a visit of `device` to `store` at `time` and records it.
    mutating func openStore(
        _ device: DeviceID, _ store: StoreNumber, at time: Int64, opening: VisitOpening, sequence: UInt64?, into batch: inout HistoryBatch
    ) {
        let visit = OpenVisit(
            device: keying.key(for: device, at: time), store: store, enter: time, opening: opening, lastSeen: time, lastSequence: sequence)
        keep(visit, of: device)
        batch.storeVisits.append(visit.record)
    }

    /// Closes `device`'s visit to `store` (and the section visit open in it) at `time` — never
    /// before it began — and records both.
    mutating func closeStore(_ device: DeviceID, _ store: StoreNumber, at time: Int64, by closing: VisitClosing, into batch: inout HistoryBatch) {
        guard let visit = open[device]?.removeValue(forKey: store) else { return }
        if open[device]?.isEmpty == true { open[device] = nil }
        batch.append(Self.closing(visit, at: time, by: closing))
    }

    /// The records of `visit` and its open section closed at `time` (at the earliest when the
    /// section began).
    static func closing(_ visit: OpenVisit, at time: Int64, by closing: VisitClosing) -> HistoryBatch {
        var batch = HistoryBatch()
        var end = max(time, visit.enter)
        if let section = visit.section {
            end = max(end, section.enter)
            batch.sectionVisits.append(section.record(device: visit.device, store: visit.store, exit: end, closing: closing))
        }
        batch.storeVisits.append(visit.closedRecord(at: end, by: closing))
        return batch
    }

    /// Counts an input older than what the book holds.
    mutating func countOutOfDate() { counters.outOfDate += 1 }

    /// Moves the book's clock to `time` if it is newer.
    mutating func note(time: Int64) { newest = max(newest ?? time, time) }

    /// Whether an event is new; counts it and its repeats.
    mutating func admit(_ device: DeviceID, store: StoreNumber, sequence: UInt64, time: Int64) -> Bool {
        counters.events += 1
        guard repeats.admit(device: device, store: store, sequence: sequence, time: time) else {
            counters.repeats += 1
            return false
        }
        return true
    }

    /// Counts a device state.
    mutating func countState() { counters.states += 1 }

    /// Records the store's and section's names when they are new or changed.
    mutating func learnNames(store: StoreNumber, storeName: String?, section: SectionRef?, sectionName: String?, into batch: inout HistoryBatch) {
        if let storeName, storeNames[store] != storeName {
            storeNames[store] = storeName
            batch.storeNames[store] = storeName
        }
        if let section, let sectionName, sectionNames[section] != sectionName {
            sectionNames[section] = sectionName
            batch.sectionNames[section] = sectionName
        }
    }

    /// Counts a visit closed as stale.
    mutating func countStale() { counters.staleClosed += 1 }
}
