import Foundation

/// The street test's parameters (fixed, with their reasons).
enum Street {
    /// Distances beyond a street door at which a leaving shopper is looked for, metres: from just
    /// past the threshold to where a phone usually fades out. The likelihood is profiled over them.
    static let distances: [Double] = [6, 10, 16, 25, 40]
    /// Mean time a shopper spends in the store before leaving, seconds: the prior rate of the
    /// inside → street transition (only from a street-door section).
    static let stayTime = 300.0
    /// P(street) at which the device has left: the evidence must outweigh the prior by far, because
    /// a false exit costs an exit and an enter event.
    static let exitProbability = 0.99
    /// Away from a street-door section a P(street) below this is not updated (the walk to the door
    /// comes first), which spares most devices the test.
    static let negligible = 1e-3
    /// P(street) is kept within these bounds, so that no single reading can make either state
    /// certain.
    static let floorProbability = 1e-6
    static let ceilingProbability = 1 - 1e-9
    /// P(street) of a device first judged for entering a store that keeps passers-by out: as
    /// likely on the street as inside. Past a few seconds of evidence it hardly matters (0.2
    /// gives the same on the simulator).
    static let entryPrior = 0.5
    /// The most an entry judgement holds the street to be likely, the certainty that takes a
    /// device out: someone who stood at the window for minutes and then walks in needs only a few
    /// seconds of evidence (ln 99 ≈ 4.6 nats), not as long as they stood there.
    static let entryCeiling = exitProbability
    /// Below this P(street) a device seen leaving may enter again, and one judged for entering a
    /// store that keeps passers-by out may enter: inside is then the likelier.
    static let reentryProbability = 0.5
    /// How long after a street exit re-entry needs the street test's consent.
    static let reentryGuard = EventDuration(milliseconds: 120_000)
    /// Shadowing (people, trolleys, the body) stays correlated for seconds, so successive readings
    /// are not independent evidence: the likelihood ratio counts in full once per this many seconds.
    static let evidenceTime = 3.0
    /// The filter steps at most this often per device: often enough for the evidence time above.
    static let step = EventDuration(milliseconds: 1000)
    /// In-store positions tried per section: a grid of this many columns and rows over its polygon,
    /// so that a phone in a corner is not mistaken for one outside.
    static let grid = 4
}

extension Street {
    /// P(street) `p` after weighing readings whose log-likelihood ratio (street against inside)
    /// is `logRatio`, counted `weight` times (Bayes' rule on the odds; the exponent is bounded so
    /// that no reading overflows them).
    static func posterior(_ p: Double, logRatio: Double, weight: Double) -> Double {
        let ratio = exp(max(-50, min(50, weight * logRatio)))
        return p * ratio / (p * ratio + (1 - p))
    }
}
