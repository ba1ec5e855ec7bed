import Foundation

/// Whether a device is being walked about or stands still, as its own links show: a two-state
/// chain (walking, standing) carried forward by how long walks and stops last, and weighed once a
/// second by how far the links' filtered levels moved since the last look — a walking device's
/// as far as the store's calibration walk measured (`walking_change_db2_per_s`: the mean squared
/// change of a link's level per second), a standing one's ``standingChangeRatio`` times less.
///
/// The `fingerprint` rule counts a standing device's evidence at ``standingShare`` of a walking
/// one's: what throws a standing phone's levels off — a body turned away, a shelf's shadow — stays
/// for seconds, so each second of it is not a fresh look, and counted as one it would outweigh a
/// whole stop's worth of the right section (docs/ENGINE.md, "Walking or standing").
struct Movement: Sendable {
    /// P(walking).
    private(set) var walking = Self.walkingShare
    /// Each link's level at the last look, by the gateway's index in its store.
    private var reference: [(gateway: Int, level: Double)] = []
    /// When the last look was; nil before the first.
    private var lastLook: EventTime?

    /// How long a walk from one stop to the next lasts on average, s: a section of about 10 m at a
    /// shopper's 1.2 m/s.
    static let walkSeconds = 8.0
    /// How long a stop lasts on average, s: shoppers linger 30–60 s where they stop.
    static let stopSeconds = 40.0
    /// The share of the time spent walking, before any look.
    static let walkingShare = walkSeconds / (walkSeconds + stopSeconds)
    /// How much less a standing device's levels change than a walking one's (mean squared change
    /// per second): between what the data show — 2.1 on the flat's robot, 3.4 on the chamber's
    /// car, 3.6 on the simulator's shoppers (docs/MEASUREMENTS.md, "Walking or standing").
    static let standingChangeRatio = 2.5
    /// What a second of a standing device's evidence counts for against a walking one's:
    /// 1 − e^(−1/6), errors that stay correlated for about 6 s (the time-varying shadowing's
    /// correlation time; a body turned away often for longer).
    static let standingShare = 1 - exp(-1.0 / 6)
    /// How often the levels are looked at: about the per-link filter's time constant.
    static let lookEvery = EventDuration.seconds(1)
    /// Beyond this since the last look the levels are too old to say how the device moved.
    static let longestLook = EventDuration.seconds(5)

    /// How much of a second's evidence counts now: all of it while walking, ``standingShare``
    /// while standing.
    var evidenceShare: Double { walking + (1 - walking) * Self.standingShare }

    /// Looks at `links` at `time` when ``lookEvery`` has passed since the last look: carries the
    /// belief forward over the time since, then weighs it by each link's change since, against
    /// `walkingChange` (dB²/s) for a walking device and ``standingChangeRatio`` times less for a
    /// standing one. Links heard at one look and not the other say nothing.
    mutating func look(at links: [FreshLink], at time: EventTime, walkingChange: Double) {
        guard !links.isEmpty else { return }
        if let last = lastLook {
            guard time - last >= Self.lookEvery else { return }
            let span = (time - last).seconds
            carry(over: span)
            if time - last <= Self.longestLook { weigh(links, span: span, walkingChange: walkingChange) }
        }
        // Kept in place: this runs once a second for every device in a calibrated store.
        reference.removeAll(keepingCapacity: true)
        for link in links { reference.append((gateway: link.g, level: link.x)) }
        lastLook = time
    }

    /// The two-state chain over `seconds`: the belief relaxes towards ``walkingShare``.
    private mutating func carry(over seconds: Double) {
        let rate = 1 / Self.walkSeconds + 1 / Self.stopSeconds
        walking = Self.walkingShare + (walking - Self.walkingShare) * exp(-rate * seconds)
    }

    /// Weighs the belief by the links' changes over `span` seconds: each change is normal with a
    /// variance of the walking or the standing rate times `span`.
    private mutating func weigh(_ links: [FreshLink], span: Double, walkingChange: Double) {
        let walkingVariance = walkingChange * span, standingVariance = walkingVariance / Self.standingChangeRatio
        let perLink = 0.5 * log(standingVariance / walkingVariance)
        let perSquare = 0.5 * (1 / standingVariance - 1 / walkingVariance)
        var logOdds = 0.0
        for link in links {
            guard let before = reference.first(where: { $0.gateway == link.g }) else { continue }
            let change = link.x - before.level
            logOdds += perLink + perSquare * change * change
        }
        // Never sure either way: a long stop ends, and a steady walk down an aisle can look still.
        let odds = walking / (1 - walking) * exp(min(30, max(-30, logOdds)))
        walking = min(0.999, max(0.001, odds / (1 + odds)))
    }
}
