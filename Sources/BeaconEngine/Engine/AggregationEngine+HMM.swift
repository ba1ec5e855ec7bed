import Foundation

extension AggregationEngine {
    /// The HMM rule: advance the device's posterior to `t`, then move it when a challenger section
    /// holds ``HMM/switchOdds`` over the current one for the dwell time.
    mutating func decideByPosterior(_ ti: Int, at t: Int64, into out: inout [EngineOutput]) {
        guard let top = forwardStep(ti, at: t) else { return }
        let model = models[tracks[ti].store]
        let current = tracks[ti].section
        let p = tracks[ti].posterior
        guard current >= 0, let c = model.local[current] else {
            tracks[ti].confidence = p[top]
            changeSection(ti, to: model.sections[top], at: t, into: &out)
            return
        }
        tracks[ti].confidence = p[c]
        let challenger = model.sections[top]
        guard challenger != current, p[top] >= HMM.switchOdds * p[c] else {
            tracks[ti].challenger = -1
            return
        }
        if tracks[ti].challenger != challenger {
            tracks[ti].challenger = challenger
            tracks[ti].challengerSince = t
        }
        if t - tracks[ti].challengerSince >= Int64(tuning.dwellSeconds * 1000) {
            tracks[ti].confidence = p[top]
            changeSection(ti, to: challenger, at: t, into: &out)
        }
    }

    /// One step of the forward filter: predict with the walking model over the time since the
    /// last step, weigh by the links' evidence, normalise. Returns the MAP section (local index),
    /// or nil when the device has no fresh link in its store and no posterior yet.
    mutating func forwardStep(_ ti: Int, at t: Int64) -> Int? {
        let store = tracks[ti].store
        let model = models[store]
        let count = model.sections.count
        let fresh = freshLinks(ti, at: t)
        var first = false
        if tracks[ti].posterior.count != count {
            guard !fresh.isEmpty else { return nil }
            tracks[ti].posterior = Array(repeating: 1 / Double(count), count: count)
            tracks[ti].posteriorTime = t
            first = true
        }
        let dt = max(0, Double(t - tracks[ti].posteriorTime) / 1000)
        guard dt > 0 || first else { return argmax(tracks[ti].posterior) }

        var posterior = tracks[ti].posterior
        if dt > 0 {
            let stay = exp(-dt / HMM.stayTime)
            var predicted = posterior.map { $0 * stay }
            for s in 0..<count {
                let moving = posterior[s] * (1 - stay)
                let neighbours = model.neighbours[s]
                if neighbours.isEmpty {
                    predicted[s] += moving
                } else {
                    for n in neighbours { predicted[n] += moving / Double(neighbours.count) }
                }
            }
            posterior = predicted
        }
        if !fresh.isEmpty {
            let weight = first ? 1 : min(1, dt / HMM.evidenceTime)
            let storeGateways = chain.stores[store].gateways
            let missed = [MissedGateway](unsafeUninitializedCapacity: storeGateways.count) { buffer, n in
                n = fresh.withUnsafeBufferPointer { missedGateways(ti, of: storeGateways, fresh: $0, at: t, into: buffer) }
            }
            let power = fresh.reduce(0) { $0 + $1.power } / Double(fresh.count)
            var logLikelihood = [Double](repeating: 0, count: count)
            for s in 0..<count { logLikelihood[s] = Self.logLikelihood(fresh, missed: missed, power: power, model: model, section: s) }
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
        tracks[ti].posterior = posterior
        tracks[ti].posteriorTime = max(t, tracks[ti].posteriorTime)
        return argmax(posterior)
    }

    /// Writes into `buffer` the gateways of `storeGateways` (global indices, in local order) that
    /// did not hear device `ti` lately, each with the level it heard it below: its floor or, when
    /// all the device's links are in use, the weakest link's estimate if that is higher (a report
    /// needs a clear lead over it to take its place). Only gateways that heard anyone lately
    /// count (``hearsLately(_:at:)``). Returns how many; the street test and the HMM both read
    /// these as censored observations.
    func missedGateways(_ ti: Int, of storeGateways: [Int], fresh: UnsafeBufferPointer<FreshLink>, at t: Int64,
                        into buffer: UnsafeMutableBufferPointer<MissedGateway>) -> Int {
        let censor = tracks[ti].links.count >= DeviceTrack.maxLinks
            ? tracks[ti].links.lazy.map(\.filter.estimate).min()! : -Double.infinity
        var m = 0
        for (local, global) in storeGateways.enumerated()
        where m < buffer.count && hearsLately(global, at: t) && !fresh.contains(where: { $0.g == local }) {
            buffer[m] = (local, max(gateways[global].floor, censor))
            m += 1
        }
        return m
    }

    /// True when gateway `g` reported someone within ``Tuning/gatewaySilenceSeconds`` of `t`: only
    /// then does its not hearing a device count as evidence (a deaf receiver, still sending its
    /// heartbeats, must not push devices out of its section or out of the store).
    func hearsLately(_ g: Int, at t: Int64) -> Bool {
        let last = gateways[g].lastHeard
        return last != .min && t - last <= Int64(tuning.gatewaySilenceSeconds * 1000)
    }

    /// Fresh links of the device's store, as the likelihoods read them.
    func freshLinks(_ ti: Int, at t: Int64) -> [FreshLink] {
        Array(unsafeUninitializedCapacity: tracks[ti].links.count) { buffer, count in
            count = freshLinks(ti, at: t, into: buffer)
        }
    }

    /// Writes the fresh links of the device's store into `buffer` (at most its count) and returns
    /// how many; the street test calls this once a second per device, without allocating.
    func freshLinks(_ ti: Int, at t: Int64, into buffer: UnsafeMutableBufferPointer<FreshLink>) -> Int {
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        let store = tracks[ti].store
        return tracks[ti].links.withUnsafeBufferPointer { links in
            var n = 0
            for link in links where n < buffer.count && Int(link.store) == store && t - link.filter.time <= stale {
                buffer[n] = (Int(gatewayLocalIndex[Int(link.gateway)]), link.filter.estimate,
                             link.filter.variance(at: t, processNoise: tuning.processNoise), link.measuredPower)
                n += 1
            }
            return n
        }
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
            ll += logNormalCDF((m.floor - (power + model.pathLoss[m.g][s] + b)) / HMM.modelSigma)
        }
        return ll
    }

    func argmax(_ p: [Double]) -> Int {
        var best = 0
        for i in p.indices where p[i] > p[best] { best = i }
        return best
    }
}
