/// A shop's day for the simulator: doors open at ``opens`` and close at ``closes`` (hours of the
/// local day), with shoppers arriving through the day as ``hourlyShare`` says — a quiet morning,
/// a lunchtime rise and the busiest hours late in the afternoon. An illustration for the demo's
/// history, not a measured footfall curve: each hour's arrival rate is the busiest hour's times
/// its share.
public struct FootfallDay: Sendable, Equatable {
    /// The hour the doors open, 0–23.
    public var opens = 8
    /// The hour the doors close, after ``opens``, 1–24.
    public var closes = 20
    /// Mean time between arrivals per store in the busiest hour, s.
    public var busiestArrivalInterval = 20.0

    /// Each open hour's arrivals against the busiest hour's, from opening to closing (the last
    /// entry repeats for longer days).
    static let hourlyShare = [0.3, 0.45, 0.6, 0.75, 0.85, 0.7, 0.65, 0.7, 0.85, 1.0, 0.95, 0.6]

    /// A day from `opens` to `closes`.
    public init(opens: Int = 8, closes: Int = 20, busiestArrivalInterval: Double = 20) {
        self.opens = opens
        self.closes = closes
        self.busiestArrivalInterval = busiestArrivalInterval
    }

    /// The mean time between arrivals per store during `hour` of the day (0–23), s; nil while
    /// the doors are closed.
    public func arrivalInterval(hour: Int) -> Double? {
        guard hour >= opens, hour < closes else { return nil }
        let share = Self.hourlyShare[min(hour - opens, Self.hourlyShare.count - 1)]
        return busiestArrivalInterval / share
    }
}
