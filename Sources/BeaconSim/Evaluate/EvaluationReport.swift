/// The scores of one aggregator run against the ground truth (`beacon-sim evaluate`).
public struct EvaluationReport: Sendable, Equatable {
    /// Share of in-store time during which the reported store and section equal the true ones.
    public var sectionAccuracy = 0.0
    /// Share of in-store time during which the reported store equals the true one.
    public var storeAccuracy = 0.0
    /// ``sectionAccuracy`` over the in-store time more than ``Evaluator/settleTime`` after the
    /// device's last true change: how often the rule is wrong once a device has stayed put, apart
    /// from the delay of any causal decision just after a move.
    public var settledSectionAccuracy = 0.0
    /// Share of in-store time within ``Evaluator/settleTime`` of a true change, where the
    /// decision delay is paid: with a delay of about that long, even an otherwise perfect rule
    /// scores at most 1 − this share.
    public var settlingShare = 0.0
    /// True section changes (stays of at least ``Evaluator/minimumStay``) and their latencies, ms.
    public var sectionChangeLatencies: [Int64] = []
    public var missedSectionChanges = 0
    /// Store entries and exits: latencies (ms), missed and false ones.
    public var enterLatencies: [Int64] = []
    public var exitLatencies: [Int64] = []
    public var missedEnters = 0
    public var missedExits = 0
    public var falseEnters = 0
    public var falseExits = 0
    /// Reported section changes with no true change behind them, and the device-hours in store.
    public var flaps = 0
    /// Those of ``flaps`` into the section the device truly is in: the return after a flap away
    /// from it, or a change reported later than the window that pairs it with its move.
    public var flapReturns = 0
    /// Those of ``flaps`` into a section the device truly left in the 30 s before and is not in:
    /// back across a boundary it had just crossed (its move already reported). The rest of the
    /// flaps, neither returns nor back, go into a section it was not in for the last 30 s.
    public var flapsBack = 0
    public var deviceHours = 0.0
    /// Reported section enters that are not a visit's first section (every reported change of
    /// section), made while the truth was scored; a change that only catches up with the place
    /// the truth resumes in after an unscored span does not count.
    public var sectionEnters = 0
    /// Store entries reported more than 10 s before the device crossed the door and held until
    /// it, while the device was still outside that store (at its window, say): how long before
    /// the crossing, ms. Each is also a missed entry (the report lies outside the matching
    /// window), and a false one unless a true entry just before excuses it.
    public var earlyEnterLeads: [Int64] = []
    /// The section enters by the confidence they claimed, and how often they were right.
    public var confidence = ConfidenceReliability()

    /// Flaps per device-hour in store.
    public var flapsPerDeviceHour: Double { deviceHours > 0 ? Double(flaps) / deviceHours : 0 }

    /// The true section changes scored: those reported in time and those missed.
    public var trueSectionChanges: Int { sectionChangeLatencies.count + missedSectionChanges }

    /// ``sectionEnters`` per true section change, nil with none: 1 for a rule that reports each
    /// change once and nothing else, above for one that flaps, below for one that misses changes.
    public var sectionEntersPerTrueChange: Double? {
        trueSectionChanges > 0 ? Double(sectionEnters) / Double(trueSectionChanges) : nil
    }

    /// The p-th percentile (0…100) of `values` in seconds, nil when empty (nearest rank).
    public static func percentile(_ values: [Int64], _ p: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = max(0, min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[rank]) / 1000
    }
}
