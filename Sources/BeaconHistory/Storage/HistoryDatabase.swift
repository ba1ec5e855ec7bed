public import BeaconCore

/// Where visits are kept: one schema, whatever the database behind it. The visit logic and the
/// reports only speak to this, so a PostgreSQL store (PostgresNIO) is one more conforming type.
///
/// Every write is idempotent by a visit's identity (device key, store, section, enter): a record
/// written again adds nothing, and a closing replaces an earlier one only when it is more certain
/// (``VisitClosing/rank``). A visit is never counted twice.
public protocol HistoryDatabase: Sendable {
    /// Whether the database was last written under another pseudonym secret than the one it was
    /// opened with (``HistoryDatabaseAccess/writing(deviceKeys:secretFingerprint:)``): the visits
    /// it left open cannot be matched to their devices. False when opened for reading.
    var secretChanged: Bool { get }

    /// Writes one batch in one transaction: all of it or none.
    func write(_ batch: HistoryBatch) async throws(HistoryDatabaseError)

    /// The store visits still open, with the section visit open in each: what a restarted
    /// recorder takes back (``VisitBook/restore(_:)``).
    func openVisits() async throws(HistoryDatabaseError) -> [OpenVisit]

    /// Deletes the visits that began before `time` (Unix ms): the retention. Returns how many
    /// store and section visits went.
    func deleteVisits(before time: Int64) async throws(HistoryDatabaseError) -> Int

    /// The store visits of `stores` (every store when empty) that began in `range` (Unix ms).
    func storeVisits(stores: Set<StoreNumber>, began range: Range<Int64>) async throws(HistoryDatabaseError) -> [StoreVisitRecord]

    /// The section visits of `stores` (every store when empty) that began in `range` (Unix ms).
    func sectionVisits(stores: Set<StoreNumber>, began range: Range<Int64>) async throws(HistoryDatabaseError) -> [SectionVisitRecord]

    /// The stores' and sections' names as the events last gave them.
    func names() async throws(HistoryDatabaseError) -> PlaceNames
}

/// Store and section names, for reports.
public struct PlaceNames: Sendable, Equatable {
    /// Store names by store number.
    public var stores: [StoreNumber: String] = [:]
    /// Section names by store, then section number.
    public var sections: [StoreNumber: [SectionNumber: String]] = [:]

    /// No names.
    public init() {}

    /// The name of `section`, if known.
    public func name(of section: SectionRef) -> String? { sections[section.store]?[section.section] }
}
