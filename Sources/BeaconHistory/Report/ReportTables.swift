import Foundation

/// The parts of a report, each a table (title, columns, rows of text), for the table and CSV
/// formats. Times are shown in the report's time zone; durations in seconds.
public enum ReportPart: String, Sendable, CaseIterable {
    /// Per store: visits, unique devices, dwell, open visits, peak occupancy.
    case stores
    /// Store visits and unique devices per day.
    case daily
    /// Store visits and unique devices per hour.
    case hourly
    /// Per section: visits, dwell, peak occupancy.
    case sections
    /// Section to next section counts.
    case flows
    /// Each section's occupancy per step: max and mean.
    case occupancy
    /// Per store and section, the visits that ended, counted by how long they lasted.
    case dwell
}

/// One part as rows of text.
struct ReportTable {
    var title: String
    var columns: [String]
    var rows: [[String]]
}

extension HistoryReport {
    /// `part` as a table.
    func table(_ part: ReportPart) -> ReportTable {
        let buckets = CalendarBuckets(timeZone: TimeZone(identifier: timeZone) ?? .gmt)
        let at = { (time: Int64?) in time.map(buckets.label) ?? "" }
        switch part {
        case .stores:
            return ReportTable(
                title: "Stores", columns: ["store", "name", "visits", "unique_devices", "dwell_median_s", "dwell_p90_s", "open", "peak", "peak_at"],
                rows: storeSummaries.map { row in
                    ["\(row.store)", row.name ?? "", "\(row.visits)", "\(row.uniqueDevices)", Self.seconds(row.dwellMedian),
                     Self.seconds(row.dwellP90), "\(row.open)", "\(row.peakOccupancy)", at(row.peakAt)]
                })
        case .daily, .hourly:
            return ReportTable(
                title: part == .daily ? "Footfall per day" : "Footfall per hour", columns: ["start", "visits", "unique_devices"],
                rows: (part == .daily ? daily : hourly).map { [$0.label, "\($0.visits)", "\($0.uniqueDevices)"] })
        case .sections:
            return ReportTable(
                title: "Sections", columns: ["store", "section", "name", "visits", "dwell_median_s", "dwell_p90_s", "peak", "peak_at"],
                rows: sections.map { row in
                    ["\(row.store)", "\(row.section)", row.name ?? "", "\(row.visits)", Self.seconds(row.dwellMedian),
                     Self.seconds(row.dwellP90), "\(row.peakOccupancy)", at(row.peakAt)]
                })
        case .flows:
            return ReportTable(
                title: "Flows", columns: ["store", "from", "from_name", "to", "to_name", "count"],
                rows: flows.map { flow in
                    ["\(flow.store)", "\(flow.from)", flow.fromName ?? "", "\(flow.to)", flow.toName ?? "", "\(flow.count)"]
                })
        case .dwell:
            return ReportTable(
                title: "Dwell", columns: ["store", "section", "name", "ended"] + DwellHistogram.labels,
                rows: storeSummaries.map { row in
                    ["\(row.store)", "", row.name ?? "", "\(row.dwellHistogram.reduce(0, +))"] + row.dwellHistogram.map(String.init)
                } + sections.map { row in
                    ["\(row.store)", "\(row.section)", row.name ?? "", "\(row.dwellHistogram.reduce(0, +))"] + row.dwellHistogram.map(String.init)
                })
        case .occupancy:
            return ReportTable(
                title: "Occupancy", columns: ["store", "section", "start", "max", "mean"],
                rows: occupancy.flatMap { series in
                    series.steps.map { ["\(series.store)", "\(series.section)", buckets.label($0.start), "\($0.max)", String(format: "%.2f", $0.mean)] }
                })
        }
    }

    /// Milliseconds as whole seconds; empty when unknown.
    static func seconds(_ milliseconds: Int64?) -> String {
        milliseconds.map { "\(($0 + 500) / 1000)" } ?? ""
    }
}
