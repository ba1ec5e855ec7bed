import Foundation

/// A forward filter (a hidden-Markov model's) over the states of one store: a belief carried
/// forward in time by a ``WalkingModel`` and weighed by how well each state explains the radio
/// evidence, kept normalised with every state above ``floor`` — the model is never sure enough to
/// rule a state out. The `hmm` and `fingerprint` rules both decide from one; they differ in the
/// evidence (a path-loss model, or learnt fingerprints) and in how much a step's evidence counts.
struct ForwardFilter: Sendable {
    /// P(state), over the store's states in local order; sums to 1.
    private(set) var belief: [Double]
    /// When it was last stepped.
    private(set) var time: EventTime

    /// No state's belief falls below this.
    static let floor = 1e-9

    /// A belief with every one of `count` states as likely, at `time`.
    init(uniform count: Int, at time: EventTime) {
        belief = Array(repeating: 1 / Double(count), count: count)
        self.time = time
    }

    /// A belief from the evidence alone (`logLikelihood`, one per state), at `time`.
    init(evidence logLikelihood: [Double], at time: EventTime) {
        let best = logLikelihood.max() ?? 0
        belief = logLikelihood.map { exp($0 - best) }
        self.time = time
        normalise()
    }

    /// Carries the belief forward to `time` by `walking` (no step back: a `time` at or before
    /// the last step changes nothing).
    mutating func predict(to time: EventTime, by walking: WalkingModel) {
        guard time > self.time else { return }
        walking.predict(&belief, over: (time - self.time).seconds)
        self.time = time
    }

    /// Weighs the belief by the evidence (`logLikelihood`, one per state) counted `weight` times,
    /// then normalises.
    mutating func weigh(_ logLikelihood: [Double], weight: Double) {
        let best = logLikelihood.max() ?? 0
        for s in belief.indices { belief[s] *= exp(weight * (logLikelihood[s] - best)) }
        normalise()
    }

    /// `state` is known not to hold (the device was let into the store: not outside): its belief
    /// goes to the floor, the rest scaled up.
    mutating func exclude(_ state: Int) {
        belief[state] = 0
        normalise()
    }

    /// Normalises without new evidence (after a prediction alone).
    mutating func settle() { normalise() }

    /// The state with the most belief (the first of equals).
    var mostLikely: Int { mostLikely(below: belief.count) }

    /// The state with the most belief among the first `count` (the sections, without an outside
    /// state after them); the first of equals.
    func mostLikely(below count: Int) -> Int {
        var best = 0
        for i in 1..<max(1, count) where belief[i] > belief[best] { best = i }
        return best
    }

    /// Scales the belief to sum to 1 and lifts every entry to at least ``floor`` (then scales
    /// again); a belief that cannot be scaled starts over, uniform.
    private mutating func normalise() {
        var total = belief.reduce(0, +)
        guard total > 0 && total.isFinite else {
            for s in belief.indices { belief[s] = 1 / Double(belief.count) }
            return
        }
        for s in belief.indices { belief[s] = max(belief[s] / total, Self.floor) }
        total = belief.reduce(0, +)
        for s in belief.indices { belief[s] /= total }
    }
}
