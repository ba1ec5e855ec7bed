import Foundation

/// The hours and days of a window in one time zone (daylight saving included: a day may have 23
/// or 25 hours), and their labels.
struct CalendarBuckets {
    private let calendar: Calendar
    private let formatter: ISO8601DateFormatter

    /// Buckets in `timeZone`.
    init(timeZone: TimeZone) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
        formatter = ISO8601DateFormatter()
        formatter.timeZone = timeZone
        formatter.formatOptions = [.withInternetDateTime]
    }

    /// The starts (Unix ms) of every `component` (.hour or .day) overlapping `range`.
    func starts(of component: Calendar.Component, in range: Range<Int64>) -> [Int64] {
        guard let first = calendar.dateInterval(of: component, for: Self.date(range.lowerBound)) else { return [] }
        var starts: [Int64] = []
        var start = first.start
        while Self.milliseconds(start) < range.upperBound {
            starts.append(Self.milliseconds(start))
            guard let next = calendar.date(byAdding: component, value: 1, to: start) else { break }
            start = next
        }
        return starts
    }

    /// The index in `starts` (ascending) of the bucket holding `time`.
    static func bucket(of time: Int64, in starts: [Int64]) -> Int? {
        var low = 0
        var high = starts.count
        while low < high {
            let middle = (low + high) / 2
            if starts[middle] <= time { low = middle + 1 } else { high = middle }
        }
        return low == 0 ? nil : low - 1
    }

    /// `time` in the time zone, ISO 8601 with its offset.
    func label(_ time: Int64) -> String { formatter.string(from: Self.date(time)) }

    static func date(_ milliseconds: Int64) -> Date { Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
