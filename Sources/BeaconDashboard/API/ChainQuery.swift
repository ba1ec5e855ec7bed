import BeaconCore
import Foundation
import Hummingbird

/// What `GET /api/chain` asks for: which stores (`q`), in which order (`sort`), and which page of
/// them. A chain of thousands of stores is answered a page at a time, so neither the dashboard
/// nor the browser builds every store's row for one look.
struct ChainQuery: Sendable, Equatable {
    /// The orders the overview offers.
    enum Sort: String, Sendable, CaseIterable {
        /// By store number.
        case major
        /// By name, as a person reads them (case and accents aside).
        case name
        /// The fullest stores first; stores without a count last.
        case occupancy
        /// What is wrong first: problems, then warnings, then the rest; within each, the most
        /// gateways offline first.
        case health
    }

    /// The most rows a page holds.
    static let mostPerPage = 500

    /// A store list and ranges (`101,103-110`) or words of a store's name; nil: every store.
    var search: String?
    var sort: Sort = .major
    /// Whether `sort`'s own order is turned round.
    var reversed = false
    /// 1 is the first page.
    var page = 1
    var perPage = 50

    /// The query `parameters` ask for; a 400 that names the parameter and the forms it takes.
    static func make(_ parameters: Parameters) throws(HTTPError) -> ChainQuery {
        var query = ChainQuery()
        if let text = parameters.get("q")?.trimmingCharacters(in: .whitespaces), !text.isEmpty {
            guard text.count <= 100 else { throw HTTPError(.badRequest, message: "q is longer than 100 characters") }
            query.search = text
        }
        if let text = parameters.get("sort") {
            guard let sort = Sort(rawValue: text) else {
                throw HTTPError(.badRequest, message: "sort \(text) is not one of \(Sort.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            query.sort = sort
        }
        if let text = parameters.get("order") {
            guard text == "reverse" || text == "natural" else {
                throw HTTPError(.badRequest, message: "order \(text) is not natural (the sort's own order) or reverse")
            }
            query.reversed = text == "reverse"
        }
        (query.page, query.perPage) = try paging(parameters)
        return query
    }

    /// `page` (1 by default) and `per_page` (50 by default, at most ``mostPerPage``).
    static func paging(_ parameters: Parameters) throws(HTTPError) -> (page: Int, perPage: Int) {
        (try number(parameters.get("page"), name: "page", default: 1, within: 1...Int(UInt16.max)),
         try number(parameters.get("per_page"), name: "per_page", default: 50, within: 1...mostPerPage))
    }

    private static func number(_ text: String?, name: String, default value: Int, within range: ClosedRange<Int>) throws(HTTPError) -> Int {
        guard let text else { return value }
        guard let number = Int(text), range.contains(number) else {
            throw HTTPError(.badRequest, message: "\(name) \(text) is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }

    /// Whether a store (its number, its name) is one the search asks for: its number within a
    /// list and ranges as a person types them (`101, 103 - 110`, `101 102`), or every word of the
    /// search within its name or starting its number. The search is read once, not once a store.
    func matcher() -> (StoreNumber, String) -> Bool {
        guard let search else { return { _, _ in true } }
        if search.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == "," || $0 == "-" || $0 == " ") }) {
            let tight = search.replacingOccurrences(of: #"\s*([,-])\s*"#, with: "$1", options: .regularExpression)
            if let stores = StoreScope(parsing: tight.split(separator: " ").joined(separator: ",")) { return { major, _ in stores.admits(major) } }
        }
        let words = search.split(whereSeparator: \.isWhitespace)
        return { major, name in
            let number = String(major)
            return words.allSatisfy { name.range(of: $0, options: [.caseInsensitive, .diacriticInsensitive]) != nil || number.hasPrefix($0) }
        }
    }
}
