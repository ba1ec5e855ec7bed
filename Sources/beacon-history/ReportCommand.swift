public import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconHistory
import Foundation
import Logging

/// `beacon-history report`: footfall, dwell, flows and peaks over a window, from the database.
struct ReportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Report footfall, section visits and dwell, flows, unique devices and peak occupancy over a window.",
        discussion: """
            Reads the database (it may be recording meanwhile). Visits that began in [--from, --to) \
            are counted; hours and days are those of --time-zone. Several --store for a set of \
            stores, none for the chain. See docs/HISTORY.md.

            Exits 78 when the database does not exist, holds no history or was written by a newer \
            beacon-history, 69 when it cannot be read, or its server cannot be reached or refuses \
            the login.
            """)

    /// The database beacon-history run writes.
    @OptionGroup
    var database: DatabaseOptions

    @Option(help: "A store (major) to report on; repeat for several; none for the chain.")
    var store: [UInt16] = []

    @Option(help: "Start: a day (2026-11-26), a local time (2026-11-26T14:30) in --time-zone, an ISO 8601 time with offset, or Unix ms. Default: today's midnight.")
    var from: String?

    @Option(help: "End (excluded), in the same forms. Default: now.")
    var to: String?

    @Option(help: "The time zone hours and days are counted in (Europe/Paris, UTC). Default: this machine's.")
    var timeZone: String?

    @Option(help: "table, csv or json.")
    var format: ReportFormat = .table

    @Option(help: "Only this part (table and csv): \(ReportPart.allCases.map(\.rawValue).joined(separator: ", ")); repeat for several.")
    var only: [ReportPart] = []

    @Option(help: "Minutes per step of the occupancy series.")
    var step = 15

    func validate() throws {
        guard step >= 1 else { throw ValidationError("--step \(step) is not 1 or more minutes") }
        let zone = try resolvedTimeZone()
        _ = try window(in: zone)
    }

    /// `--time-zone`, or this machine's.
    func resolvedTimeZone() throws -> TimeZone {
        guard let timeZone else { return .current }
        guard let zone = TimeZone(identifier: timeZone) else {
            throw ValidationError("--time-zone \(timeZone) is not a time zone (an identifier such as Europe/Paris or UTC)")
        }
        return zone
    }

    /// The window `--from` and `--to` give, in `zone`.
    func window(in zone: TimeZone) throws -> Range<Int64> {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        let start = try from.map { try Self.time($0, flag: "--from", zone: zone) } ?? ReportTime.startOfDay(now, timeZone: zone)
        let end = try to.map { try Self.time($0, flag: "--to", zone: zone) } ?? now
        guard start < end else { throw ValidationError("--from must come before --to") }
        return start..<end
    }

    private static func time(_ text: String, flag: String, zone: TimeZone) throws -> Int64 {
        guard let time = ReportTime.parse(text, timeZone: zone) else {
            throw ValidationError("\(flag) \(text) is not a day (2026-11-26), a local time (2026-11-26T14:30), an ISO 8601 time with offset, or Unix ms")
        }
        return time
    }

    func run() async throws {
        let zone = try resolvedTimeZone()
        let query = ReportQuery(stores: Set(store), range: try window(in: zone), timeZone: zone, occupancyStep: Int64(step) * 60_000)
        let logger = Logger(label: "beaconnet.history")
        let report = try await database.withDatabase(access: .reading, logger: logger) { database in
            try await HistoryReport.make(query: query, database: database)
        }
        print(report.rendered(as: format, parts: only.isEmpty ? ReportPart.allCases : only), terminator: "")
    }
}

extension ReportFormat: ExpressibleByArgument {}
extension ReportPart: ExpressibleByArgument {}
