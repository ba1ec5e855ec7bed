import BeaconCore
import GRDB

extension SQLiteHistoryDatabase {
    /// Writes `batch` in one transaction: its visits opened, refreshed or closed (an open one ranks
    /// 0 among closings, so that any closing replaces it), and the names new or changed.
    public func write(_ batch: HistoryBatch) async throws(HistoryDatabaseError) {
        guard !batch.isEmpty else { return }
        try await write("write a batch of \(batch.count) records") { db in
            let storeVisit = try db.cachedStatement(sql: HistorySchema.upsertStoreVisit)
            for visit in batch.storeVisits {
                try storeVisit.execute(arguments: [
                    visit.device, Int(visit.store), visit.enter, visit.exit, visit.opening.rawValue, visit.closing?.rawValue,
                    visit.closing?.rank ?? 0, visit.lastSeen,
                ])
            }
            let sectionVisit = try db.cachedStatement(sql: HistorySchema.upsertSectionVisit)
            for visit in batch.sectionVisits {
                try sectionVisit.execute(arguments: [
                    visit.device, Int(visit.section.store), Int(visit.section.section), visit.enter, visit.exit,
                    visit.fromSection.map { Int($0) }, visit.opening.rawValue, visit.closing?.rawValue, visit.closing?.rank ?? 0,
                ])
            }
            let storeName = try db.cachedStatement(sql: HistorySchema.upsertStoreName)
            for (store, name) in batch.storeNames { try storeName.execute(arguments: [Int(store), name]) }
            let sectionName = try db.cachedStatement(sql: HistorySchema.upsertSectionName)
            for (section, name) in batch.sectionNames {
                try sectionName.execute(arguments: [Int(section.store), Int(section.section), name])
            }
        }
    }

    /// The visits a previous run left open, to take back at start.
    public func openVisits() async throws(HistoryDatabaseError) -> [OpenVisit] {
        try await read("read the open visits") { db in
            var visits: [StoreVisitKey: OpenVisit] = [:]
            let stores = try Row.fetchCursor(db, sql: """
                SELECT device, store, enter_time, opened_by, last_seen FROM store_visits WHERE exit_time IS NULL
                """)
            while let row = try stores.next() {
                let visit = OpenVisit(
                    device: row["device"], store: try Self.number(row, "store"), enter: row["enter_time"],
                    opening: try Self.opening(row), lastSeen: row["last_seen"])
                visits[StoreVisitKey(device: visit.device, store: visit.store)] = visit
            }
            let sections = try Row.fetchCursor(db, sql: """
                SELECT device, store, section, enter_time, from_section, opened_by FROM section_visits
                WHERE exit_time IS NULL ORDER BY enter_time
                """)
            while let row = try sections.next() {
                let key = StoreVisitKey(device: row["device"], store: try Self.number(row, "store"))
                guard var visit = visits[key], visit.enter <= row["enter_time"] else { continue }
                visit.section = OpenSection(
                    section: try Self.number(row, "section"), enter: row["enter_time"],
                    fromSection: try (row["from_section"] as Int?).map { value throws in try Self.number(value, "from_section") },
                    opening: try Self.opening(row))
                visits[key] = visit
            }
            return Array(visits.values)
        }
    }

    /// Deletes the visits that began before `time` (Unix ms); how many.
    public func deleteVisits(before time: Int64) async throws(HistoryDatabaseError) -> Int {
        try await write("delete the visits before \(time)") { db in
            try db.execute(sql: "DELETE FROM section_visits WHERE enter_time < ?", arguments: [time])
            let sections = db.changesCount
            try db.execute(sql: "DELETE FROM store_visits WHERE enter_time < ?", arguments: [time])
            return sections + db.changesCount
        }
    }

    /// One store visit's place in the open-visit map.
    private struct StoreVisitKey: Hashable {
        var device: String
        var store: StoreNumber
    }

    /// The 0–65535 number in `column`.
    static func number(_ row: Row, _ column: String) throws -> UInt16 {
        try number(row[column] as Int, column)
    }

    /// `value` as a store or section number; a value out of range is a damaged database.
    static func number(_ value: Int, _ column: String) throws -> UInt16 {
        guard let number = UInt16(exactly: value) else { throw StoredValueError(column: column, value: "\(value)") }
        return number
    }

    /// The row's `opened_by`.
    static func opening(_ row: Row) throws -> VisitOpening {
        let text: String = row["opened_by"]
        guard let opening = VisitOpening(rawValue: text) else { throw StoredValueError(column: "opened_by", value: text) }
        return opening
    }

    /// The row's `closed_by`, nil while open.
    static func closing(_ row: Row) throws -> VisitClosing? {
        guard let text = row["closed_by"] as String? else { return nil }
        guard let closing = VisitClosing(rawValue: text) else { throw StoredValueError(column: "closed_by", value: text) }
        return closing
    }
}

/// A stored value this version cannot read: a damaged or foreign database.
struct StoredValueError: Error, CustomStringConvertible {
    /// The column.
    var column: String
    /// What it held.
    var value: String

    var description: String { "\(column) holds \(value), which this beacon-history does not know" }
}
