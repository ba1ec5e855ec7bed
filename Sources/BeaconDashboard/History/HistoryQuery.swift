import BeaconCore
import BeaconHistory
import Foundation
import Hummingbird

/// The query string of `GET /api/history` and `/api/history/stores/<major>` as a ``ReportQuery``, read as
/// `beacon-history report` reads its flags: `from` and `to` are a day (`2026-11-26`), a local time
/// (`2026-11-26T14:30`) in `time-zone`, an ISO 8601 time with its offset, or Unix ms (`to`
/// excluded; by default today's midnight and now); `time-zone` an identifier (`Europe/Paris`,
/// the dashboard's own by default); `step` the occupancy series' minutes (15). The window and
/// the series are bounded, so one request cannot make the dashboard read or send without end.
/// `/api/history` also takes `stores`: `all` or a list and ranges (`101,103-110`), within the
/// login's stores, which are its default.
enum HistoryQuery {
    /// The longest window answered, ms.
    static let longestWindow: Int64 = 31 * 86_400_000
    /// The most steps in one occupancy series.
    static let mostSteps: Int64 = 5_000
    /// The most stores named in one request (a chain's whole list fits; `all` names none).
    static let mostStores = 5_000

    /// The query for `stores` (every store when empty) that `parameters` ask for, `now` being
    /// Unix ms; throws a 400 that names the parameter and the forms it takes.
    static func make(stores: Set<StoreNumber>, parameters: Parameters, now: Int64) throws(HTTPError) -> ReportQuery {
        let zone = try timeZone(parameters.get("time-zone"))
        let from = try parameters.get("from").map { text throws(HTTPError) in try time(text, parameter: "from", zone: zone) }
            ?? ReportTime.startOfDay(now, timeZone: zone)
        let to = try parameters.get("to").map { text throws(HTTPError) in try time(text, parameter: "to", zone: zone) } ?? now
        guard from < to else { throw HTTPError(.badRequest, message: "from must come before to (to is excluded)") }
        guard to - from <= longestWindow else {
            throw HTTPError(.badRequest, message: "the window from \(from) to \(to) is longer than 31 days: ask for a shorter one")
        }
        let step = try minutes(parameters.get("step"))
        guard (to - from) / step <= mostSteps else {
            throw HTTPError(.badRequest, message: "step \(step / 60_000) makes more than \(mostSteps) occupancy steps over the window: ask for a longer step")
        }
        return ReportQuery(stores: stores, range: from..<to, timeZone: zone, occupancyStep: step)
    }

    /// The stores `stores` (`all`, or `101,103-110`; the login's own when not given) asks for,
    /// as a report's set (empty for the whole chain), for a login that may see `scope`. A 400
    /// for a malformed list or one naming more than ``mostStores`` (the login's own are not
    /// bounded), a 403 for a store outside the scope.
    static func stores(_ text: String?, scope: StoreScope) throws(HTTPError) -> Set<StoreNumber> {
        let asked: StoreScope
        if let text {
            guard let parsed = StoreScope(parsing: text) else {
                throw HTTPError(.badRequest, message: "stores \(text) is not all or a list of store numbers and ranges such as 101,103-110")
            }
            asked = parsed
        } else {
            asked = scope
        }
        switch asked {
        case .chain:
            guard scope == .chain else { throw HTTPError(.forbidden, message: "this login may see stores \(scope) only") }
            return []
        case .stores(let ranges):
            let count = ranges.reduce(0) { $0 + $1.count }
            // A list the client names is bounded; the login's own stores are what it may see.
            guard count <= mostStores || text == nil else {
                throw HTTPError(.badRequest, message: "stores \(asked) names \(count) stores, more than \(mostStores): ask for fewer, or leave stores out for all of this login's")
            }
            let numbers = Set(ranges.joined())
            if let outside = numbers.sorted().first(where: { !scope.admits($0) }) {
                throw HTTPError(.forbidden, message: "store \(outside) is not among this login's stores (\(scope))")
            }
            return numbers
        }
    }

    /// `time-zone`, or the dashboard's own.
    static func timeZone(_ text: String?) throws(HTTPError) -> TimeZone {
        guard let text else { return .current }
        guard let zone = TimeZone(identifier: text) else {
            throw HTTPError(.badRequest, message: "time-zone \(text) is not a time zone (an identifier such as Europe/Paris or UTC)")
        }
        return zone
    }

    /// `text` (`from` or `to`) as Unix ms.
    static func time(_ text: String, parameter: String, zone: TimeZone) throws(HTTPError) -> Int64 {
        guard let time = ReportTime.parse(text, timeZone: zone) else {
            throw HTTPError(
                .badRequest,
                message: "\(parameter) \(text) is not a day (2026-11-26), a local time (2026-11-26T14:30), an ISO 8601 time with offset (+ written %2B), or Unix ms")
        }
        return time
    }

    /// `step` in ms: whole minutes from 1 to a day, 15 when not given.
    static func minutes(_ text: String?) throws(HTTPError) -> Int64 {
        guard let text else { return 15 * 60_000 }
        guard let minutes = Int64(text), (1...1440).contains(minutes) else {
            throw HTTPError(.badRequest, message: "step \(text) is not a whole number of minutes from 1 to 1440")
        }
        return minutes * 60_000
    }
}
