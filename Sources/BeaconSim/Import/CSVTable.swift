import Foundation

/// A small CSV file read whole (the datasets' tables are a few MB at most): its header and its
/// rows, each with its line number, so that a bad value is reported where it is. No quoting:
/// the datasets have none, and a quote is refused rather than misread.
struct CSVTable {
    /// The file, as named in errors.
    let file: String
    /// The header's 1-based line number.
    let headerLine: Int
    /// The header's column names, trimmed.
    let columns: [String]
    /// The data rows, blank lines skipped.
    let rows: [Row]

    /// One data row.
    struct Row {
        /// Its 1-based line number in the file.
        let line: Int
        /// Its fields, trimmed, as many as the header has.
        let fields: [Substring]
    }

    /// Reads `path`; throws when it is missing, empty, or a row has another number of fields
    /// than the header.
    init(path: String) throws(ImportError) {
        file = path
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ImportError(file: path, reason: "cannot read it as UTF-8 text (\(FileManager.default.fileExists(atPath: path) ? "unreadable" : "no such file"))")
        }
        var header: (line: Int, columns: [String])?
        var rows: [Row] = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty { continue }
            if line.contains("\"") { throw ImportError(file: path, line: index + 1, reason: "a quoted field: these tables have none") }
            let fields = line.split(separator: ",", omittingEmptySubsequences: false).map { Substring($0.trimmingCharacters(in: .whitespaces)) }
            guard let header else {
                header = (index + 1, fields.map(String.init))
                continue
            }
            guard fields.count == header.columns.count else {
                throw ImportError(file: path, line: index + 1, reason: "\(fields.count) fields where the header has \(header.columns.count)")
            }
            rows.append(Row(line: index + 1, fields: fields))
        }
        guard let header else { throw ImportError(file: path, reason: "empty: no header line") }
        headerLine = header.line
        columns = header.columns
        self.rows = rows
    }

    /// The index of the column named `name`; throws, naming the header line, when there is none.
    func column(_ name: String) throws(ImportError) -> Int {
        guard let index = columns.firstIndex(of: name) else {
            throw ImportError(file: file, line: headerLine, reason: "no column \"\(name)\" (the header has \(columns.filter { !$0.isEmpty }.joined(separator: ", ")))")
        }
        return index
    }

    /// An error about `row`.
    func error(_ row: Row, _ reason: String) -> ImportError { ImportError(file: file, line: row.line, reason: reason) }

    /// A finite number in `column` of `row`, or nil where the field is empty.
    func optionalNumber(_ row: Row, _ column: Int) throws(ImportError) -> Double? {
        let field = row.fields[column]
        if field.isEmpty { return nil }
        guard let value = Double(field), value.isFinite else {
            throw error(row, "\(columns[column]) \"\(field)\" is not a number")
        }
        return value
    }

    /// A finite number in `column` of `row`.
    func number(_ row: Row, _ column: Int) throws(ImportError) -> Double {
        guard let value = try optionalNumber(row, column) else { throw error(row, "\(columns[column]) is empty") }
        return value
    }

    /// A whole number in `column` of `row`.
    func integer(_ row: Row, _ column: Int) throws(ImportError) -> Int {
        guard let value = Int(row.fields[column]) else {
            throw error(row, "\(columns[column]) \"\(row.fields[column])\" is not a whole number")
        }
        return value
    }
}
