public import BeaconCore
import GRDB

extension SQLiteHistoryDatabase {
    /// The store visits of `stores` (all, when empty) that began in `range`.
    public func storeVisits(stores: Set<StoreNumber>, began range: Range<Int64>) async throws(HistoryDatabaseError) -> [StoreVisitRecord] {
        let (filter, arguments) = Self.filter(stores: stores, began: range)
        return try await read("read the store visits") { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT device, store, enter_time, exit_time, opened_by, closed_by, last_seen FROM store_visits
                WHERE \(filter) ORDER BY enter_time, store, device
                """, arguments: arguments)
            var visits: [StoreVisitRecord] = []
            while let row = try rows.next() {
                visits.append(StoreVisitRecord(
                    device: row["device"], store: try Self.number(row, "store"), enter: row["enter_time"], exit: row["exit_time"],
                    opening: try Self.opening(row), closing: try Self.closing(row), lastSeen: row["last_seen"]))
            }
            return visits
        }
    }

    /// The section visits of `stores` (all, when empty) that began in `range`.
    public func sectionVisits(stores: Set<StoreNumber>, began range: Range<Int64>) async throws(HistoryDatabaseError) -> [SectionVisitRecord] {
        let (filter, arguments) = Self.filter(stores: stores, began: range)
        return try await read("read the section visits") { db in
            let rows = try Row.fetchCursor(db, sql: """
                SELECT device, store, section, enter_time, exit_time, from_section, opened_by, closed_by FROM section_visits
                WHERE \(filter) ORDER BY enter_time, store, section, device
                """, arguments: arguments)
            var visits: [SectionVisitRecord] = []
            while let row = try rows.next() {
                let section = SectionRef(store: try Self.number(row, "store"), section: try Self.number(row, "section"))
                visits.append(SectionVisitRecord(
                    device: row["device"], section: section, enter: row["enter_time"], exit: row["exit_time"],
                    fromSection: try (row["from_section"] as Int?).map { value throws in try Self.number(value, "from_section") },
                    opening: try Self.opening(row), closing: try Self.closing(row)))
            }
            return visits
        }
    }

    /// The stores' and sections' names last seen.
    public func names() async throws(HistoryDatabaseError) -> PlaceNames {
        try await read("read the names") { db in
            var names = PlaceNames()
            for row in try Row.fetchAll(db, sql: "SELECT store, name FROM store_names") {
                names.stores[try Self.number(row, "store")] = row["name"]
            }
            for row in try Row.fetchAll(db, sql: "SELECT store, section, name FROM section_names") {
                names.sections[try Self.number(row, "store"), default: [:]][try Self.number(row, "section")] = row["name"]
            }
            return names
        }
    }

    /// The WHERE clause for visits of `stores` (all when empty) begun in `range`, and its
    /// arguments; the store numbers are bound, never spliced in.
    static func filter(stores: Set<StoreNumber>, began range: Range<Int64>) -> (String, StatementArguments) {
        var arguments: StatementArguments = [range.lowerBound, range.upperBound]
        guard !stores.isEmpty else { return ("enter_time >= ? AND enter_time < ?", arguments) }
        let sorted = stores.sorted()
        arguments += StatementArguments(sorted.map { Int($0) })
        let marks = Array(repeating: "?", count: sorted.count).joined(separator: ", ")
        return ("enter_time >= ? AND enter_time < ? AND store IN (\(marks))", arguments)
    }
}
