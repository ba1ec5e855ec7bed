import BeaconCore
import BeaconHistory
import BeaconWire
import Foundation
import Logging
import TestSupport

/// A history database written as beacon-history writes one: the region events an aggregator
/// publishes for shoppers' walks go through its visit logic (`VisitBook`) into a batch, which its
/// SQLite store writes to a real file.
enum HistoryFill {
    /// One shopper: into `store` at `enter` (Unix ms), through `sections` in order, each for its
    /// minutes, and out when the last one ends.
    struct Walk: Sendable {
        var shopper: Int
        var store: StoreNumber
        var enter: Int64
        var sections: [(section: SectionNumber, minutes: Int)]

        /// When it ends, Unix ms.
        var exit: Int64 { enter + Int64(sections.reduce(0) { $0 + $1.minutes }) * 60_000 }
    }

    static let uuid = "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"
    static let storeNames: [StoreNumber: String] = [101: "Lyon Part-Dieu", 102: "Villeurbanne"]
    static let sectionNames: [SectionNumber: String] = [1: "Entrance", 2: "Grocery", 3: "Clothing", 4: "Electronics", 5: "Checkout"]

    /// A new database file in a test directory holding `walks`; its path.
    static func database(_ walks: [Walk]) async throws -> String {
        let path = try TestDirectory.make("dashboard-history").appendingPathComponent("history.sqlite").path
        try await fill(try SQLiteHistoryDatabase(path: path, deviceKeys: DeviceKeying.rawIdentifiers.kindName, secretFingerprint: nil), walks)
        return path
    }

    /// A new database on the tests' PostgreSQL server holding `walks`; its URL.
    static func postgres(_ walks: [Walk]) async throws -> String {
        let url = try await SharedPostgres.database("dashboard_history").url
        let location = try HistoryDatabaseLocation(parsing: url)
        let writing = HistoryDatabaseAccess.writing(deviceKeys: DeviceKeying.rawIdentifiers.kindName, secretFingerprint: nil)
        try await location.withDatabase(access: writing, logger: Logger(label: "test.history-fill")) { try await fill($0, walks) }
        return url
    }

    /// Writes `walks` to `database` as the recorder would.
    static func fill(_ database: some HistoryDatabase, _ walks: [Walk]) async throws {
        var book = VisitBook(keying: .rawIdentifiers)
        var batch = HistoryBatch()
        // By time; at one instant in the order a walk makes them (a section's exit before the next's enter).
        for event in try walks.flatMap(events).enumerated().sorted(by: { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }) {
            book.apply(event.element, into: &batch)
        }
        try await database.write(batch)
    }

    /// The events of `walk`, in order: store enter, each section's enter (from the previous one)
    /// and exit, store exit.
    static func events(_ walk: Walk) throws -> [RegionEvent] {
        let device = try DeviceID("ib-\(uuid)-1000-\(walk.shopper)")
        var events: [RegionEvent] = []
        func add(_ kind: RegionTransition, _ section: SectionNumber?, at time: Int64, from: SectionNumber? = nil, dwell: Int64? = nil) {
            events.append(RegionEvent(
                kind: kind, region: section.map { .section(SectionRef(store: walk.store, section: $0)) } ?? .store(walk.store),
                device: device, uuid: uuid, storeName: storeNames[walk.store] ?? "Store \(walk.store)", sectionName: section.map { sectionNames[$0] ?? "Section \($0)" },
                time: time, fromSection: from, dwellMilliseconds: dwell, proximity: .near, confidence: 0.9, sequence: UInt64(events.count + 1)))
        }
        add(.enter, nil, at: walk.enter)
        var time = walk.enter
        var previous: SectionNumber?
        for step in walk.sections {
            add(.enter, step.section, at: time, from: previous)
            let dwell = Int64(step.minutes) * 60_000
            time += dwell
            add(.exit, step.section, at: time, dwell: dwell)
            previous = step.section
        }
        add(.exit, nil, at: time, dwell: time - walk.enter)
        return events
    }

    /// A day of shoppers in store 101 from 08:00 of the UTC day `day` (Unix ms of its midnight):
    /// one every 7 minutes until 20:00, each through two to four of the five sections.
    static func day(_ day: Int64) -> [Walk] {
        (0..<103).map { shopper in
            let enter = day + 8 * 3_600_000 + Int64(shopper) * 7 * 60_000
            let middle: [SectionNumber] = [[2], [2, 3], [3, 4], [4, 2, 3], [3]][shopper % 5]
            let sections = ([1] + middle + [5]).enumerated().map { (section: $0.element, minutes: 2 + (shopper * 3 + $0.offset * 5) % 17) }
            return Walk(shopper: shopper, store: 101, enter: enter, sections: sections)
        }
    }
}
