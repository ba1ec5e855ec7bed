import Foundation

/// The street test: is a device that is inside actually walking away outside a street door,
/// still heard through it? A two-state filter (in the store / on the street) per device, with the
/// `hmm` rule's likelihood: the best in-store position against the best street position, the
/// device's common offset profiled out, evidence tempered to once per ``Street/evidenceTime``.
struct StreetTest: Sendable {
    /// The street test's memory of one device.
    struct DeviceState: Sendable {
        /// P(walking away outside a street door).
        var probability = 0.0
        /// When ``probability`` was last updated; nil until the first step of this visit.
        var updated: EventTime?
        /// The store and time of the last exit the test decided: re-entering that store needs its
        /// consent for a while (``Street/reentryGuard``).
        var exit: (store: Int, time: EventTime)?
    }

    /// What the test reads of a device at one step.
    struct Reading {
        /// Its section (an index into ``Chain/sections``); nil when in none.
        var section: Int?
        /// Whether it is inside (rather than outside or unknown).
        var inside: Bool
    }

    /// Per store, the street's model (nil where the geometry is missing or it is switched off).
    let models: [StreetModel?]
    /// Per store, whether every entry needs the test's consent (`passers_by`).
    let judgesEntries: [Bool]
    /// Per track, the entry being judged, if any (``admits(_:to:at:evidence:)``).
    private(set) var judgements: [EntryJudgement?] = []
    /// Mean time before someone just outside comes back in (`outside_stay_s`), s.
    let returnTime: Double
    /// Per track.
    private(set) var devices: [DeviceState] = []

    init(chain: Chain) {
        let models = chain.stores.indices.map { chain.tuning.streetExit ? StreetModel(chain: chain, store: $0) : nil }
        self.models = models
        judgesEntries = chain.stores.indices.map { models[$0] != nil && chain.stores[$0].passersBy }
        returnTime = chain.tuning.outsideStaySeconds
    }

    /// Whether `store` has a street model.
    func covers(_ store: Int) -> Bool { models[store] != nil }

    /// Whether the device on `track` may enter `store` at `time` (from outside, or from another
    /// store): always, unless the store keeps passers-by out; then once its judgement
    /// (``EntryJudgement``) finds the street the less likely. A judgement of another store, or
    /// one not looked at for ``returnTime``, starts afresh from the prior, its first look
    /// weighed by the time since the last. `evidence` as for ``step``'s.
    mutating func admits(_ track: Int, to store: Int, at time: EventTime, evidence: (StreetModel, Double) -> Double?) -> Bool {
        guard judgesEntries[store], let model = models[store] else { return true }
        let current = judgements[track]
        var judgement = EntryJudgement(store: store, lastLook: current?.updated)
        if let current, current.store == store, let last = current.updated, (time - last).seconds < returnTime {
            judgement = current
        }
        judgement.look(at: time, logRatio: evidence(model, .infinity))
        judgements[track] = judgement
        return judgement.admits
    }

    /// Track `track` now holds a device not seen yet.
    mutating func start(_ track: Int) {
        if track < devices.count {
            devices[track] = DeviceState()
            judgements[track] = nil
        } else {
            devices.append(DeviceState())
            judgements.append(nil)
        }
    }

    /// A visit begins: the filter starts from "in the store".
    mutating func startVisit(_ track: Int) {
        devices[track].probability = 0
        devices[track].updated = nil
        judgements[track] = nil
    }

    /// The test took the device out of `store` at `time`.
    mutating func noteExit(_ track: Int, store: Int, at time: EventTime) { devices[track].exit = (store, time) }

    /// One step of the filter for the device on `track` in `store` at `time`; `evidence` gives
    /// log p(readings | street) − log p(readings | inside) for the store's model (nil: no fresh
    /// link), searched no further than a cutoff. Returns true when the device has left
    /// (P(street) ≥ ``Street/exitProbability``).
    mutating func step(_ track: Int, store: Int, at time: EventTime, reading: Reading,
                       evidence: (StreetModel, Double) -> Double?) -> Bool {
        guard let model = models[store] else { return false }
        let last = devices[track].updated
        if let last, time - last < Street.step { return devices[track].probability >= Street.exitProbability }
        let dt = last.map { (time - $0).seconds } ?? 1
        devices[track].updated = time
        var p = devices[track].probability
        // Predict: only a street-door section leads out.
        let own = reading.section.flatMap { model.sections.local[$0] }
        let atDoor = !reading.inside || own.map { model.doorSections.contains($0) } ?? true
        if !atDoor && p < Street.negligible {
            // Deep in the store and nowhere near leaving: the walk to the door comes first.
            devices[track].probability = 0
            return false
        }
        let leave = atDoor ? 1 - exp(-dt / Street.stayTime) : 0
        let back = 1 - exp(-dt / returnTime)
        p = p * (1 - back) + (1 - p) * leave
        let weight = min(1, dt / Street.evidenceTime)
        // Evidence for "inside" beyond this leaves P(street) at its floor whatever its exact size
        // (p·r / (p·r + 1 − p) ≤ floor for every ratio r ≤ e^(−weight·cutoff)), so the search for
        // the best in-store position may stop once one position reaches it.
        let floor = Street.floorProbability
        let cutoff = -log(floor * (1 - p) / (p * (1 - floor))) / weight
        if let logRatio = evidence(model, weight * cutoff <= 50 ? cutoff : .infinity) {
            p = Street.posterior(p, logRatio: logRatio, weight: weight)
        }
        devices[track].probability = min(max(p, Street.floorProbability), Street.ceilingProbability)
        return devices[track].probability >= Street.exitProbability
    }

    /// log p(readings | street) − log p(readings | inside), each at its best position, from the
    /// device's fresh links and the store's gateways that missed it; nil when no link is fresh.
    /// When some in-store position beats the street by `insideCutoff` the search stops there
    /// (the device's own `section`, local, is tried first), and the result is only known to be
    /// ≤ −`insideCutoff`.
    static func evidence(model: StreetModel, section own: Int?, fresh: UnsafeBufferPointer<FreshLink>,
                         missed: UnsafeBufferPointer<MissedGateway>, insideCutoff: Double = .infinity) -> Double? {
        guard !fresh.isEmpty else { return nil }
        var power = 0.0
        for l in fresh { power += l.power }
        power /= Double(fresh.count)
        let street = StreetLikelihood.bestLogLikelihood(fresh, missed: missed, power: power, table: model.pathLoss)
        let inside = StreetLikelihood.bestLogLikelihood(
            fresh, missed: missed, power: power, table: model.insideLoss,
            first: own.map { model.insidePositions[$0] } ?? 0..<0, enough: street + insideCutoff)
        return street - inside
    }
}
