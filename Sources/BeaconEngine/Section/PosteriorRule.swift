import Foundation

/// The `hmm` rule: a forward filter over the store's sections. Transitions follow a walking-time
/// model over the adjacency graph; emissions come from the path-loss model of ``SectionModel``
/// with the device's unknown power offset profiled out, and every gateway that heard someone
/// lately but not this device counted as censored (below its floor). The device moves when a
/// challenger has held ``HMM/switchOdds`` over the current section for `dwell_s`.
struct PosteriorRule: SectionRule {
    /// The filter's belief, and the challenger it is timing.
    struct DeviceState: Sendable {
        /// P(section) over the current store's sections (local order); empty before the first step
        /// of a visit.
        var posterior: [Double] = []
        /// When ``posterior`` was last stepped.
        var time: EventTime?
        /// The section holding the odds, and since when.
        var challenger: (section: Int, since: EventTime)?
    }

    /// Per store: the expected radio picture of its sections.
    let models: [SectionModel]
    /// How long a challenger must hold its odds, ms.
    let dwell: Int64

    init(chain: Chain) {
        models = chain.stores.indices.map { SectionModel(chain: chain, store: $0) }
        dwell = Int64(chain.tuning.dwellSeconds * 1000)
    }

    var initialState: DeviceState { DeviceState() }
    var weighsEveryLink: Bool { true }

    func decide(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        let model = models[evidence.store]
        guard let top = forwardStep(&state, model: model, evidence: evidence, at: time) else { return .stay }
        let p = state.posterior
        guard let current = evidence.current, let c = model.local[current] else {
            return .move(to: model.sections[top], confidence: p[top])
        }
        let challenger = model.sections[top]
        guard challenger != current, p[top] >= HMM.switchOdds * p[c] else {
            state.challenger = nil
            return SectionVerdict(section: nil, confidence: p[c])
        }
        if state.challenger?.section != challenger { state.challenger = (challenger, time) }
        if let since = state.challenger?.since, time - since >= dwell {
            return .move(to: challenger, confidence: p[top])
        }
        return SectionVerdict(section: nil, confidence: p[c])
    }

    /// A visit starts from no belief: the first step weighs the evidence alone.
    func enter(_ state: inout DeviceState, evidence: SectionEvidence, at time: EventTime) -> SectionVerdict {
        state.posterior = []
        var first = evidence
        first.current = nil
        return decide(&state, evidence: first, at: time)
    }

    func moved(_ state: inout DeviceState, at time: EventTime) { state.challenger = nil }

    func stopWatching(_ state: inout DeviceState) { state.challenger = nil }

    func isWatching(_ state: DeviceState) -> Bool { state.challenger != nil }

    /// The forward filter's posterior of `section` is its confidence.
    func confidence(_ state: DeviceState, store: Int, section: Int?, evidence: SectionEvidence) -> Double? {
        guard let section, let c = models[store].local[section], c < state.posterior.count else { return nil }
        return state.posterior[c]
    }

    /// One step of the forward filter: predict with the walking model over the time since the
    /// last step, weigh by the links' evidence, normalise. Returns the MAP section (local index),
    /// or nil when the device has no fresh link in its store and no posterior yet.
    private func forwardStep(_ state: inout DeviceState, model: SectionModel, evidence: SectionEvidence, at time: EventTime) -> Int? {
        let count = model.sections.count
        let fresh = evidence.links
        var first = false
        if state.posterior.count != count {
            guard !fresh.isEmpty else { return nil }
            state.posterior = Array(repeating: 1 / Double(count), count: count)
            state.time = time
            first = true
        }
        let last = state.time ?? time
        let dt = max(0, Double(time - last) / 1000)
        guard dt > 0 || first else { return Self.argmax(state.posterior) }

        var posterior = state.posterior
        if dt > 0 { posterior = Self.predict(posterior, model: model, over: dt) }
        if !fresh.isEmpty {
            let weight = first ? 1 : min(1, dt / HMM.evidenceTime)
            let power = fresh.reduce(0) { $0 + $1.power } / Double(fresh.count)
            var logLikelihood = [Double](repeating: 0, count: count)
            for s in 0..<count {
                logLikelihood[s] = Self.logLikelihood(fresh, missed: evidence.missed, power: power, model: model, section: s)
            }
            let best = logLikelihood.max() ?? 0
            for s in 0..<count { posterior[s] *= exp(weight * (logLikelihood[s] - best)) }
        }
        let total = posterior.reduce(0, +)
        if total > 0 && total.isFinite {
            // A floor keeps every section reachable: the model is never certain enough to rule one out.
            posterior = posterior.map { max($0 / total, 1e-9) }
        } else {
            posterior = Array(repeating: 1 / Double(count), count: count)
        }
        state.posterior = posterior
        state.time = max(time, last)
        return Self.argmax(posterior)
    }

    /// The walking model over `dt` seconds: a device stays with probability e^(−dt/τ), else moves
    /// to one of its section's neighbours.
    private static func predict(_ posterior: [Double], model: SectionModel, over dt: Double) -> [Double] {
        let stay = exp(-dt / HMM.stayTime)
        var predicted = posterior.map { $0 * stay }
        for s in posterior.indices {
            let moving = posterior[s] * (1 - stay)
            let neighbours = model.neighbours[s]
            if neighbours.isEmpty {
                predicted[s] += moving
            } else {
                for n in neighbours { predicted[n] += moving / Double(neighbours.count) }
            }
        }
        return predicted
    }

    /// log p(links | section) with the device's common offset `b` (transmit power, body) profiled
    /// out under a N(0, σ_b²) prior: residuals `r_g = x_g − (power_g + L[g][s])`, weights
    /// `w_g = 1/(σ_model² + P_g)`, `b̂ = Σw·r / (Σw + 1/σ_b²)`.
    static func logLikelihood(_ links: [FreshLink], missed: [MissedGateway] = [], power: Double = 0, model: SectionModel, section s: Int) -> Double {
        var sw = 0.0, swr = 0.0
        for l in links {
            let w = 1 / (HMM.modelSigma * HMM.modelSigma + l.variance)
            let r = l.x - (l.power + model.pathLoss[l.g][s])
            sw += w
            swr += w * r
        }
        let b = swr / (sw + 1 / (HMM.offsetSigma * HMM.offsetSigma))
        var ll = -0.5 * b * b / (HMM.offsetSigma * HMM.offsetSigma)
        for l in links {
            let w = 1 / (HMM.modelSigma * HMM.modelSigma + l.variance)
            let r = l.x - (l.power + model.pathLoss[l.g][s]) - b
            ll -= 0.5 * w * r * r
        }
        for m in missed {
            ll += StreetLikelihood.logNormalCDF((m.floor - (power + model.pathLoss[m.g][s] + b)) / HMM.modelSigma)
        }
        return ll
    }

    static func argmax(_ p: [Double]) -> Int {
        var best = 0
        for i in p.indices where p[i] > p[best] { best = i }
        return best
    }
}
