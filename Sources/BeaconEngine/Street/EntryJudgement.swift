/// The street test's judgement of whether a device outside a store that keeps passers-by out
/// (`passers_by`), or in another store, has come into it: P(on the street) from
/// ``Street/entryPrior``, moved only by the evidence — unlike the exit filter it has no drift, so
/// someone standing at the window is not taken in by waiting there.
struct EntryJudgement: Sendable {
    /// The store judged, an index into ``Chain/stores``.
    let store: Int
    /// P(on the street rather than inside).
    var probability = Street.entryPrior
    /// When the evidence was last weighed (just begun: when the device was last looked at for
    /// another store); nil before any look.
    var updated: EventTime?

    /// A judgement of `store` from ``Street/entryPrior``; `lastLook`: when the device was last
    /// looked at for another store, so that switching stores does not count a look in full twice.
    init(store: Int, lastLook: EventTime? = nil) {
        self.store = store
        updated = lastLook
    }

    /// Whether the device may enter: the street is the less likely.
    var admits: Bool { probability < Street.reentryProbability }

    /// Weighs one look at `time`: `logRatio` is log p(readings | street) − log p(readings | inside)
    /// (nil: no fresh link, nothing to weigh), counted in full once per ``Street/evidenceTime``
    /// (the first look in full: it weighs the sightings that made the entry ready). A look within
    /// ``Street/step`` of the last changes nothing.
    mutating func look(at time: EventTime, logRatio: Double?) {
        if let last = updated, time - last < Street.step { return }
        let weight = updated.map { min(1, (time - $0).seconds / Street.evidenceTime) } ?? 1
        updated = time
        guard let logRatio else { return }
        let p = Street.posterior(probability, logRatio: logRatio, weight: weight)
        probability = min(max(p, Street.floorProbability), Street.entryCeiling)
    }
}
