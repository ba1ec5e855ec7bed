public import BeaconCore
import PostgresNIO

extension PostgresHistoryDatabase {
    /// The store visits of `stores` (all, when empty) that began in `range`.
    public func storeVisits(stores: Set<StoreNumber>, began range: Range<Int64>) async throws(HistoryDatabaseError) -> [StoreVisitRecord] {
        let query = Self.filtered(
            "SELECT device, store, enter_time, exit_time, opened_by, closed_by, last_seen FROM store_visits", stores: stores, began: range)
        return try await rows("read the store visits", query) { row in
            let (device, store, enter, exit, opening, closing, lastSeen) = try row.decode((String, Int32, Int64, Int64?, String, String?, Int64).self)
            return StoreVisitRecord(
                device: device, store: try Self.number(store, "store"), enter: enter, exit: exit, opening: try Self.opening(opening),
                closing: try Self.closing(closing), lastSeen: lastSeen)
        }
    }

    /// The section visits of `stores` (all, when empty) that began in `range`.
    public func sectionVisits(stores: Set<StoreNumber>, began range: Range<Int64>) async throws(HistoryDatabaseError) -> [SectionVisitRecord] {
        let query = Self.filtered(
            "SELECT device, store, section, enter_time, exit_time, from_section, opened_by, closed_by FROM section_visits",
            stores: stores, began: range, tieBreak: "store, section, device")
        return try await rows("read the section visits", query) { row in
            let (device, store, section, enter, exit, fromSection, opening, closing) = try row.decode(
                (String, Int32, Int32, Int64, Int64?, Int32?, String, String?).self)
            return SectionVisitRecord(
                device: device, section: SectionRef(store: try Self.number(store, "store"), section: try Self.number(section, "section")),
                enter: enter, exit: exit, fromSection: try fromSection.map { value throws in try Self.number(value, "from_section") },
                opening: try Self.opening(opening), closing: try Self.closing(closing))
        }
    }

    /// The stores' and sections' names last seen.
    public func names() async throws(HistoryDatabaseError) -> PlaceNames {
        var names = PlaceNames()
        let stores = try await rows("read the names", "SELECT store, name FROM store_names") { row in
            let (store, name) = try row.decode((Int32, String).self)
            return (try Self.number(store, "store"), name)
        }
        for (store, name) in stores { names.stores[store] = name }
        let sections = try await rows("read the names", "SELECT store, section, name FROM section_names") { row in
            let (store, section, name) = try row.decode((Int32, Int32, String).self)
            return (SectionRef(store: try Self.number(store, "store"), section: try Self.number(section, "section")), name)
        }
        for (section, name) in sections { names.sections[section.store, default: [:]][section.section] = name }
        return names
    }

    /// `select` limited to the visits of `stores` (all when empty) begun in `range`, in the order
    /// they began (ties in a fixed order); the stores are bound as one array, never spliced in.
    static func filtered(_ select: String, stores: Set<StoreNumber>, began range: Range<Int64>, tieBreak: String = "store, device") -> PostgresQuery {
        var bindings = bindings(range.lowerBound, range.upperBound)
        var filter = "enter_time >= $1 AND enter_time < $2"
        if !stores.isEmpty {
            bindings.append(stores.sorted().map { Int32($0) })
            filter += " AND store = ANY($3)"
        }
        return PostgresQuery(unsafeSQL: "\(select) WHERE \(filter) ORDER BY enter_time, \(tieBreak)", binds: bindings)
    }
}
