import BeaconCore
import PostgresNIO

extension PostgresHistoryDatabase {
    /// Writes `batch` in one transaction: one statement per table (``PostgresBatch``).
    public func write(_ batch: HistoryBatch) async throws(HistoryDatabaseError) {
        guard !batch.isEmpty else { return }
        let queries = PostgresBatch(batch).queries
        let logger = logger
        try await transaction("write a batch of \(batch.count) records") { connection in
            for query in queries { try await connection.query(query, logger: logger) }
        }
    }

    /// The visits a previous run left open, to take back at start.
    public func openVisits() async throws(HistoryDatabaseError) -> [OpenVisit] {
        let stores = try await rows(
            "read the open visits",
            "SELECT device, store, enter_time, opened_by, last_seen FROM store_visits WHERE exit_time IS NULL"
        ) { row in
            let (device, store, enter, opening, lastSeen) = try row.decode((String, Int32, Int64, String, Int64).self)
            return OpenVisit(
                device: device, store: try Self.number(store, "store"), enter: enter, opening: try Self.opening(opening), lastSeen: lastSeen)
        }
        var visits: [StoreVisitKey: OpenVisit] = [:]
        for visit in stores { visits[StoreVisitKey(device: visit.device, store: visit.store)] = visit }
        let sections = try await rows(
            "read the open visits",
            """
            SELECT device, store, section, enter_time, from_section, opened_by FROM section_visits
            WHERE exit_time IS NULL ORDER BY enter_time
            """
        ) { row in
            let (device, store, section, enter, fromSection, opening) = try row.decode((String, Int32, Int32, Int64, Int32?, String).self)
            let open = OpenSection(
                section: try Self.number(section, "section"), enter: enter,
                fromSection: try fromSection.map { value throws in try Self.number(value, "from_section") }, opening: try Self.opening(opening))
            return (StoreVisitKey(device: device, store: try Self.number(store, "store")), open)
        }
        for (key, section) in sections {
            guard var visit = visits[key], visit.enter <= section.enter else { continue }
            visit.section = section
            visits[key] = visit
        }
        return Array(visits.values)
    }

    /// Deletes the visits that began before `time` (Unix ms); how many.
    public func deleteVisits(before time: Int64) async throws(HistoryDatabaseError) -> Int {
        let logger = logger
        return try await transaction("delete the visits before \(time)") { connection in
            var deleted = 0
            for table in ["section_visits", "store_visits"] {
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: "WITH gone AS (DELETE FROM \(table) WHERE enter_time < $1 RETURNING 1) SELECT count(*) FROM gone",
                                  binds: Self.bindings(time)),
                    logger: logger)
                for try await count in rows.decode(Int64.self) { deleted += Int(count) }
            }
            return deleted
        }
    }

    /// One store visit's place in the open-visit map.
    struct StoreVisitKey: Hashable, Sendable {
        var device: String
        var store: StoreNumber
    }

    /// `values` bound in order.
    static func bindings(_ values: Int64...) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: values.count)
        for value in values { bindings.append(value) }
        return bindings
    }

    /// `value` of `column` as a store or section number; a value out of range is a damaged database.
    static func number(_ value: Int32, _ column: String) throws -> UInt16 {
        guard let number = UInt16(exactly: value) else { throw StoredValueError(column: column, value: "\(value)") }
        return number
    }

    /// An `opened_by` value.
    static func opening(_ text: String) throws -> VisitOpening {
        guard let opening = VisitOpening(rawValue: text) else { throw StoredValueError(column: "opened_by", value: text) }
        return opening
    }

    /// A `closed_by` value, nil while open.
    static func closing(_ text: String?) throws -> VisitClosing? {
        guard let text else { return nil }
        guard let closing = VisitClosing(rawValue: text) else { throw StoredValueError(column: "closed_by", value: text) }
        return closing
    }
}
