/// Page's CUSUM change detector: a challenger's lead over the current choice, less a drift,
/// summed over time and floored at zero. A lead above the drift builds the sum, one below wears it
/// down rather than resetting it, so a lead that comes and goes never gets far; the change is
/// declared when the sum reaches a threshold the caller sets (margin × dwell, or log-odds).
///
/// Every change model of the engine sums this way: the hysteresis rule's section lead, the lead
/// of another store's gateways before a device moves there, and the position rule's evidence.
struct LeadSum: Sendable, Equatable {
    /// The running sum (the lead's unit × seconds).
    private(set) var value = 0.0

    /// Adds `lead` held for `seconds`, less `drift`: `max(0, sum + (lead − drift)·seconds)`.
    @inline(__always)
    mutating func add(_ lead: Double, over seconds: Double, drift: Double) {
        value = max(0, value + (lead - drift) * seconds)
    }

    /// Starts again from nothing.
    mutating func reset() { value = 0 }
}

/// A ``LeadSum`` of a lead looked at now and then: between two looks the lead is taken as the
/// straight line from one to the other (trapezoids), over at most `longestStep` (how long a
/// reading counts), so a device heard every few seconds still moves.
struct SampledLead: Sendable {
    /// The sum so far.
    private(set) var sum = LeadSum()
    /// The last look's lead; 0 before the first.
    private(set) var lastLead = 0.0
    /// The last look's time; nil before the first look.
    private(set) var lastLook: EventTime?

    /// Looks at `lead` at `time`: adds the time since the last look (none at the first) at the
    /// mean of the two leads, less `drift`.
    mutating func look(_ lead: Double, at time: EventTime, drift: Double, longestStep: EventDuration) {
        if let last = lastLook {
            sum.add((lastLead + lead) / 2, over: min(time - last, longestStep).seconds, drift: drift)
        }
        record(lead, at: time)
    }

    /// Takes `lead` at `time` as the last look without adding anything: the sum starts again
    /// from here for a new challenger.
    mutating func restart(with lead: Double, at time: EventTime) {
        sum.reset()
        record(lead, at: time)
    }

    /// The sum starts again at `time` (a move was made), from the last lead seen.
    mutating func restart(at time: EventTime) {
        sum.reset()
        lastLook = time
    }

    private mutating func record(_ lead: Double, at time: EventTime) {
        lastLead = lead
        lastLook = time
    }
}
