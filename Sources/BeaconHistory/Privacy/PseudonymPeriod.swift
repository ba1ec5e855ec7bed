/// How long one pseudonym of a device lasts: the key that turns device ids into pseudonyms is
/// derived afresh for every period, so the same phone has unrelated pseudonyms on two days (or
/// in two weeks) and its visits cannot be linked across them. Periods are counted in UTC.
public enum PseudonymPeriod: String, Sendable, Hashable, CaseIterable {
    /// One UTC day, midnight to midnight: unique devices per day are exact, nothing links two days.
    case day
    /// One ISO week, Monday 00:00 UTC to the next: returning visitors within a week can be told.
    case week

    /// Milliseconds in a day.
    static let dayMilliseconds: Int64 = 86_400_000

    /// The number of the period holding `time` (Unix ms): days since 1970-01-01, or weeks since
    /// Monday 1969-12-29 (1970-01-01 was a Thursday).
    public func index(of time: Int64) -> Int64 {
        let day = Self.floorDivide(time, Self.dayMilliseconds)
        switch self {
        case .day: return day
        case .week: return Self.floorDivide(day + 3, 7)
        }
    }

    /// When period `index` starts, Unix ms.
    public func start(of index: Int64) -> Int64 {
        switch self {
        case .day: return index * Self.dayMilliseconds
        case .week: return (index * 7 - 3) * Self.dayMilliseconds
        }
    }

    /// Division rounding towards minus infinity, so times before 1970 fall in the right period.
    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return value % divisor < 0 ? quotient - 1 : quotient
    }
}
