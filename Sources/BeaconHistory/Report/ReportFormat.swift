import Foundation

/// How a report is printed.
public enum ReportFormat: String, Sendable, CaseIterable {
    /// Aligned columns, each part under its title: for a person.
    case table
    /// Each part as CSV (a header row, then rows), parts separated by a blank line.
    case csv
    /// The whole report as one JSON object (snake_case keys, times in Unix ms and as labels).
    case json
}

extension HistoryReport {
    /// The report as `format`, with `parts` (tables and CSV; JSON holds every part).
    public func rendered(as format: ReportFormat, parts: [ReportPart] = ReportPart.allCases) -> String {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            // Encoding plain numbers and strings cannot fail.
            return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) + "\n" } ?? "{}\n"
        case .csv:
            return parts.map { part in
                let table = table(part)
                return ([table.columns] + table.rows).map { $0.map(Self.csvField).joined(separator: ",") }.joined(separator: "\n") + "\n"
            }.joined(separator: "\n")
        case .table:
            let heading = "BeaconNet history, \(stores.isEmpty ? "the chain" : "stores " + stores.map(String.init).joined(separator: ", ")), "
                + "\(fromLabel) to \(toLabel) (\(timeZone))\n"
            return heading + parts.map { Self.aligned(table($0)) }.joined()
        }
    }

    /// A CSV field, quoted when it holds a comma, a quote or a line break.
    static func csvField(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// `table` under its title, columns padded to their widest cell.
    static func aligned(_ table: ReportTable) -> String {
        let lines = [table.columns] + table.rows
        let widths = table.columns.indices.map { column in lines.map { $0[column].count }.max() ?? 0 }
        let text = lines.map { cells in
            cells.enumerated().map { $0.element.padding(toLength: widths[$0.offset], withPad: " ", startingAt: 0) }
                .joined(separator: "  ").trimmingCharacters(in: .whitespaces)
        }
        return "\n\(table.title)\n" + (table.rows.isEmpty ? "(none)\n" : text.joined(separator: "\n") + "\n")
    }
}
