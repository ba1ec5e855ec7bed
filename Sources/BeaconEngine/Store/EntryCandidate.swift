/// Sightings gathered towards entering a store.
struct EntryCandidate: Sendable {
    /// The store.
    var store: Int
    /// Sightings of it since ``start``.
    var count = 0
    /// Start of the evidence window.
    var start: EventTime
    /// When the evidence sufficed: the entry waits until every live gateway of the store has
    /// reported up to then, so the first section is chosen on all of them.
    var readyAt: EventTime?
    /// For a device inside another store: the lead of this store's strongest fresh link over its
    /// own store's, summed over time less the switch margin (the hysteresis rule's test, between
    /// stores); nil before the first look.
    var lead: SampledLead?

    init(store: Int, start: EventTime, lead: SampledLead? = nil) {
        self.store = store
        self.start = start
        self.lead = lead
    }

    /// How long, at a lead of twice the margin, another store's link must lead before the device
    /// has moved there, seconds: long enough for a turn of the body at a shared wall to pass.
    static let storeMoveSeconds = 1.0

    /// Looks at this store's strongest fresh level `there` against the device's own store's
    /// `here` (nil: none fresh) at `time`: true when the summed lead (trapezoids, each step at most
    /// `longestStep`) has reached `margin` × ``storeMoveSeconds`` while the lead is still over the
    /// margin — a lead of twice the margin held for a second. A look behind the last one counts
    /// nothing and says no.
    mutating func storeLeads(there: Double, here: Double?, margin: Double, at time: EventTime, longestStep: EventDuration) -> Bool {
        let lead = min(3 * margin, max(-3 * margin, there - (here ?? -.infinity)))
        var sampled = self.lead ?? SampledLead()
        if let last = sampled.lastLook, time < last { return false }
        sampled.look(lead, at: time, drift: margin, longestStep: longestStep)
        self.lead = sampled
        return lead > margin && sampled.sum.value >= margin * Self.storeMoveSeconds
    }
}
