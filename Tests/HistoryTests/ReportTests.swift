import BeaconCore
@testable import BeaconHistory
import Foundation
import Testing
import TestSupport

/// The answers over hand-made visits, in a real SQLite file and a real PostgreSQL database: the
/// same answers from either.
@Suite struct ReportTests {
    /// 2025-11-26 00:00 UTC.
    static let day: Int64 = 1_764_115_200_000
    static func at(_ hour: Int, _ minute: Int) -> Int64 { day + Int64(hour * 3_600_000 + minute * 60_000) }

    static func store(_ device: String, _ store: StoreNumber, _ enter: Int64, _ exit: Int64?) -> StoreVisitRecord {
        StoreVisitRecord(device: device, store: store, enter: enter, exit: exit, opening: .enter, closing: exit.map { _ in .exit }, lastSeen: exit ?? enter)
    }

    static func section(_ device: String, _ section: SectionNumber, _ enter: Int64, _ exit: Int64?, from: SectionNumber? = nil) -> SectionVisitRecord {
        SectionVisitRecord(
            device: device, section: SectionRef(store: 101, section: section), enter: enter, exit: exit, fromSection: from, opening: .enter,
            closing: exit.map { _ in .exit })
    }

    /// Store 101: d1 twice, d2, d3 still inside; store 102: d4.
    static var batch: HistoryBatch {
        var batch = HistoryBatch()
        batch.storeVisits = [
            store("d1", 101, at(10, 5), at(10, 35)), store("d2", 101, at(10, 20), at(11, 20)), store("d3", 101, at(11, 30), nil),
            store("d1", 101, at(14, 0), at(14, 10)), store("d4", 102, at(10, 0), at(10, 30)),
        ]
        batch.sectionVisits = [
            section("d1", 1, at(10, 5), at(10, 10)), section("d1", 2, at(10, 10), at(10, 35), from: 1),
            section("d2", 1, at(10, 20), at(10, 25)), section("d2", 3, at(10, 25), at(11, 20), from: 1),
            section("d3", 2, at(11, 30), nil), section("d1", 2, at(14, 0), at(14, 10)),
        ]
        batch.storeNames = [101: "Lyon", 102: "Villeurbanne"]
        batch.sectionNames = [SectionRef(store: 101, section: 1): "Entrance", SectionRef(store: 101, section: 2): "Grocery"]
        return batch
    }

    /// The report of ``batch`` written to a new database of `kind`.
    static func report(
        _ kind: StoreKind, stores: Set<StoreNumber> = [101], zone: String = "UTC", step: Int64 = 3_600_000
    ) async throws -> HistoryReport {
        let query = ReportQuery(stores: stores, range: day..<(day + 86_400_000), timeZone: TimeZone(identifier: zone)!, occupancyStep: step)
        return try await StoreFixture.make(kind).withDatabase { database in
            try await database.write(batch)
            return try await HistoryReport.make(query: query, database: database)
        }
    }

    @Test(arguments: StoreKind.available)
    func footfallPerHourAndDayWithUniqueDevices(_ kind: StoreKind) async throws {
        let report = try await Self.report(kind)
        #expect(report.hourly.count == 24)
        #expect(report.hourly.filter { $0.visits > 0 }.map { "\($0.label) \($0.visits)" } == [
            "2025-11-26T10:00:00Z 2", "2025-11-26T11:00:00Z 1", "2025-11-26T14:00:00Z 1",
        ])
        #expect(report.daily.map { "\($0.label) \($0.visits) \($0.uniqueDevices)" } == ["2025-11-26T00:00:00Z 4 3"])
    }

    @Test(arguments: StoreKind.available)
    func storeDwellAndPeak(_ kind: StoreKind) async throws {
        let summary = try #require(try await Self.report(kind).storeSummaries.first)
        #expect(summary.store == 101 && summary.name == "Lyon")
        #expect(summary.visits == 4 && summary.uniqueDevices == 3 && summary.open == 1)
        // Closed dwells 10, 30 and 60 min: nearest-rank median 30, p90 60.
        #expect(summary.dwellMedian == Int64(30 * 60_000))
        #expect(summary.dwellP90 == Int64(60 * 60_000))
        #expect(summary.peakOccupancy == 2)
        #expect(summary.peakAt == Self.at(10, 20))
        // The same three in bins: 10–15 min, 30–60 min, an hour or more; the open one nowhere.
        #expect(summary.dwellHistogram == [0, 0, 0, 0, 1, 0, 1, 1])
    }

    @Test func dwellBins() {
        #expect(DwellHistogram.counts([0, 59_999, 60_000, 299_999, 300_000, 3_599_999, 3_600_000, 86_400_000]) == [2, 1, 1, 1, 0, 0, 1, 2])
        #expect(DwellHistogram.labels.first == "0-1 min" && DwellHistogram.labels.last == "60+ min")
        #expect(DwellHistogram.labels.count == DwellHistogram.binStarts.count)
    }

    @Test(arguments: StoreKind.available)
    func sectionsFlowsAndOccupancy(_ kind: StoreKind) async throws {
        let report = try await Self.report(kind)
        #expect(report.sections.map { "\($0.section) \($0.visits) \(($0.dwellMedian ?? 0) / 60_000) \(($0.dwellP90 ?? 0) / 60_000) \($0.peakOccupancy)" } == [
            "1 2 5 5 1", "2 3 10 25 2", "3 1 55 55 1",
        ])
        #expect(report.sections[1].peakAt == Self.at(14, 0))
        #expect(report.flows.map { "\($0.from)→\($0.to) \($0.count)" } == ["1→2 1", "1→3 1"])
        let grocery = try #require(report.occupancy.first { $0.section == 2 })
        #expect(grocery.steps.count == 24)
        #expect(grocery.steps[10].max == 1 && grocery.steps[10].mean == 0.42)
        #expect(grocery.steps[12].max == 1 && grocery.steps[12].mean == 1)
        #expect(grocery.steps[14].max == 2)
    }

    @Test(arguments: StoreKind.available)
    func theChainHasEveryStore(_ kind: StoreKind) async throws {
        let report = try await Self.report(kind, stores: [])
        #expect(report.storeSummaries.map(\.store) == [101, 102])
        #expect(report.daily.first?.visits == 5)
        #expect(report.daily.first?.uniqueDevices == 4)
    }

    @Test(arguments: StoreKind.available)
    func hoursAndDaysOfTheTimeZone(_ kind: StoreKind) async throws {
        let report = try await Self.report(kind, zone: "Europe/Paris")
        #expect(report.hourly.first?.label == "2025-11-26T01:00:00+01:00")
        #expect(report.hourly.filter { $0.visits > 0 }.first?.label == "2025-11-26T11:00:00+01:00")
        // The UTC day straddles two Paris days.
        #expect(report.daily.map(\.label) == ["2025-11-26T00:00:00+01:00", "2025-11-27T00:00:00+01:00"])
    }

    @Test(arguments: StoreKind.available)
    func formats(_ kind: StoreKind) async throws {
        let report = try await Self.report(kind)
        #expect(report.rendered(as: .csv, parts: [.flows]) == """
            store,from,from_name,to,to_name,count
            101,1,Entrance,2,Grocery,1
            101,1,Entrance,3,,1

            """)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        #expect(try decoder.decode(HistoryReport.self, from: Data(report.rendered(as: .json).utf8)) == report)
        let table = report.rendered(as: .table, parts: [.stores, .sections])
        #expect(table.contains("Stores\nstore  name"))
        #expect(table.contains("101    Lyon  4       3               1800"))
        #expect(report.rendered(as: .csv, parts: [.dwell]).hasPrefix("store,section,name,ended,0-1 min,1-2 min,2-5 min,5-10 min,10-15 min,15-30 min,30-60 min,60+ min\n101,,Lyon,3,0,0,0,0,1,0,1,1\n"))
    }

    @Test func timesAsAPersonWritesThem() {
        let utc = TimeZone(identifier: "UTC")!
        let paris = TimeZone(identifier: "Europe/Paris")!
        #expect(ReportTime.parse("2025-11-26", timeZone: utc) == Self.day)
        #expect(ReportTime.parse("2025-11-26", timeZone: paris) == Self.day - 3_600_000)
        #expect(ReportTime.parse("2025-11-26T10:05", timeZone: utc) == Self.at(10, 5))
        #expect(ReportTime.parse("2025-11-26 10:05:00", timeZone: utc) == Self.at(10, 5))
        #expect(ReportTime.parse("2025-11-26T11:05:00+01:00", timeZone: utc) == Self.at(10, 5))
        #expect(ReportTime.parse("\(Self.day)", timeZone: utc) == Self.day)
        #expect(ReportTime.parse("yesterday", timeZone: utc) == nil)
    }
}
