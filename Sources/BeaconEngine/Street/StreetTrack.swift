/// The street test's memory of one device.
struct StreetTrack: Sendable {
    /// P(walking away outside a street door).
    var probability = 0.0
    /// When ``probability`` was last updated; nil until the first step of this visit.
    var updated: EventTime?
    /// The store and time of the last exit the test decided: re-entering that store needs its
    /// consent for a while (``Street/reentryGuard``).
    var exit: (store: Int, time: EventTime)?
}
