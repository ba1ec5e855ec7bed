import Foundation

/// The street test's parameters (fixed, with their reasons).
enum Street {
    /// Distances beyond a street door at which a leaving shopper is looked for, metres: from just
    /// past the threshold to where a phone usually fades out. The likelihood is profiled over them.
    static let distances: [Double] = [6, 10, 16, 25, 40]
    /// Mean time a shopper spends in the store before leaving, seconds: the prior rate of the
    /// inside → street transition (only from a street-door section).
    static let stayTime = 300.0
    /// Mean time before someone just outside comes back in, seconds.
    static let returnTime = 60.0
    /// P(street) at which the device has left: the evidence must outweigh the prior by far, because
    /// a false exit costs an exit and an enter event.
    static let exitProbability = 0.99
    /// Below this P(street) a device seen leaving may enter again.
    static let reentryProbability = 0.5
    /// How long after a street exit re-entry needs the street test's consent, ms.
    static let reentryGuard: Int64 = 120_000
    /// Shadowing (people, trolleys, the body) stays correlated for seconds, so successive readings
    /// are not independent evidence: the likelihood ratio counts in full once per this many seconds.
    static let evidenceTime = 3.0
    /// In-store positions tried per section: a grid of this many columns and rows over its polygon,
    /// so that a phone in a corner is not mistaken for one outside.
    static let grid = 4
}

/// Expected radio picture of the street outside one store's doors, for the street test.
struct StreetModel: Sendable {
    /// The store's sections, as the HMM sees them.
    let sections: SectionModel
    /// `pathLoss[g local][k]`: path-loss term (storefront included) from each gateway to street position `k`, dB.
    let pathLoss: [[Double]]
    /// `insideLoss[g local][k]`: the same to in-store position `k` (a grid over every section).
    let insideLoss: [[Double]]
    /// Local indices of the sections with a street door.
    let doorSections: Set<Int>
    /// The store's gateways (global indices) in local order.
    let gateways: [Int]

    /// Nil when the store has no located street door or no gateway with a position.
    init?(chain: Chain, store: Int) {
        let sectionModel = SectionModel(chain: chain, store: store)
        let gateways = chain.stores[store].gateways
        // Each position with the section whose walls its signal crosses (a street position: its door's).
        var positions: [(Chain.Point, Int)] = []
        var doors: Set<Int> = []
        for (j, s) in sectionModel.sections.enumerated() {
            guard let (door, out) = chain.sections[s].streetDoorway else { continue }
            doors.insert(j)
            for r in Street.distances { positions.append((Chain.Point(x: door.x + r * out.x, y: door.y + r * out.y), s)) }
        }
        guard !positions.isEmpty, gateways.allSatisfy({ chain.gateways[$0].position != nil }) else { return nil }
        var inside: [(Chain.Point, Int)] = []
        for s in sectionModel.sections {
            guard let polygon = chain.sections[s].polygon, polygon.count >= 3 else { return nil }
            inside += Self.grid(polygon).map { ($0, s) }
        }
        sections = sectionModel
        doorSections = doors
        self.gateways = gateways
        func loss(_ points: [(Chain.Point, Int)], extra: Double) -> [[Double]] {
            gateways.map { g in
                let gateway = chain.gateways[g]
                let p = gateway.position!
                return points.map { (q, section) in
                    let dx = p.x - q.x, dy = p.y - q.y
                    let d = (dx * dx + dy * dy + SectionModel.mountHeight * SectionModel.mountHeight).squareRoot()
                    let walls = Double(min(chain.hops(from: section, to: gateway.section), 6)) * chain.tuning.wallDB
                    return -10 * gateway.pathLossExponent * log10(max(d, 0.5)) - walls - extra
                }
            }
        }
        pathLoss = loss(positions, extra: chain.tuning.storefrontDB)
        insideLoss = loss(inside, extra: 0)
    }

    /// Grid points inside `polygon` (its centroid when none falls inside).
    static func grid(_ polygon: [Chain.Point]) -> [Chain.Point] {
        let xs = polygon.map(\.x), ys = polygon.map(\.y)
        let (x0, x1, y0, y1) = (xs.min()!, xs.max()!, ys.min()!, ys.max()!)
        var points: [Chain.Point] = []
        let n = Street.grid
        for i in 0..<n {
            for j in 0..<n {
                let p = Chain.Point(x: x0 + (x1 - x0) * (Double(i) + 0.5) / Double(n), y: y0 + (y1 - y0) * (Double(j) + 0.5) / Double(n))
                if contains(polygon, p) { points.append(p) }
            }
        }
        return points.isEmpty ? [SectionModel.centroid(polygon)] : points
    }

    /// Even-odd point-in-polygon test.
    static func contains(_ polygon: [Chain.Point], _ p: Chain.Point) -> Bool {
        var inside = false
        var j = polygon.count - 1
        for i in polygon.indices {
            let a = polygon[i], b = polygon[j]
            if (a.y > p.y) != (b.y > p.y), p.x < (b.x - a.x) * (p.y - a.y) / (b.y - a.y) + a.x { inside.toggle() }
            j = i
        }
        return inside
    }
}

extension AggregationEngine {
    /// The street test: is a device that is inside actually walking away outside a street door,
    /// still heard through it? A two-state filter (in the store / on the street) with the HMM's
    /// likelihood: the best in-store section against the best street position, the device's common
    /// offset profiled out, evidence tempered to once per second. Returns true when the device has
    /// left (P(street) ≥ ``Street/exitProbability``).
    mutating func streetStep(_ ti: Int, store: Int, at t: Int64) -> Bool {
        guard let model = streetModels[store] else { return false }
        let last = tracks[ti].streetTime
        if last != .min && t - last < 1000 { return tracks[ti].streetP >= Street.exitProbability }
        let dt = last == .min ? 1 : Double(t - last) / 1000
        tracks[ti].streetTime = t
        let fresh = freshLinks(ti, at: t, model: model.sections)
        var p = tracks[ti].streetP
        // Predict: only a street-door section leads out.
        let atDoor = tracks[ti].state != .inside || tracks[ti].section < 0
            || model.sections.local[tracks[ti].section].map { model.doorSections.contains($0) } ?? true
        let leave = atDoor ? 1 - exp(-dt / Street.stayTime) : 0
        let back = 1 - exp(-dt / Street.returnTime)
        p = p * (1 - back) + (1 - p) * leave
        if !fresh.isEmpty {
            // Gateways of the store that have not heard it lately: each says "too weak here".
            var heard = [Bool](repeating: false, count: model.gateways.count)
            for l in fresh { heard[l.g] = true }
            // A device keeps at most maxLinks links: when all are in use, a gateway without one may
            // still hear it, only more weakly than the weakest it has.
            let censor = fresh.count >= DeviceTrack.maxLinks ? fresh.map(\.x).min()! : -Double.infinity
            var missed: [(g: Int, floor: Double)] = []
            for (local, global) in model.gateways.enumerated() where !heard[local] {
                missed.append((local, max(gateways[global].floor, censor)))
            }
            let power = fresh.reduce(0) { $0 + $1.power } / Double(fresh.count)
            var inside = -Double.infinity
            for k in model.insideLoss.first?.indices ?? 0..<0 {
                inside = max(inside, Self.logLikelihood(fresh, missed: missed, power: power, pathLoss: model.insideLoss, position: k))
            }
            var street = -Double.infinity
            for k in model.pathLoss.first?.indices ?? 0..<0 {
                street = max(street, Self.logLikelihood(fresh, missed: missed, power: power, pathLoss: model.pathLoss, position: k))
            }
            let weight = min(1, dt / Street.evidenceTime)
            let ratio = exp(max(-50, min(50, weight * (street - inside))))
            p = p * ratio / (p * ratio + (1 - p))
        }
        tracks[ti].streetP = min(max(p, 1e-6), 1 - 1e-9)
        return tracks[ti].streetP >= Street.exitProbability
    }

    /// ``logLikelihood(_:pathLoss:position:)`` plus the gateways that did not hear the device: each
    /// contributes log P(RSSI below its floor) under the same offset, a censored observation.
    static func logLikelihood(_ links: [(g: Int, x: Double, variance: Double, power: Double)], missed: [(g: Int, floor: Double)],
                              power: Double, pathLoss: [[Double]], position k: Int) -> Double {
        let (heard, b) = logLikelihoodAndOffset(links, pathLoss: pathLoss, position: k)
        var ll = heard
        for m in missed {
            let z = (m.floor - (power + pathLoss[m.g][k] + b)) / HMM.modelSigma
            ll += log(max(1e-12, 0.5 * erfc(-z / 2.0.squareRoot())))
        }
        return ll
    }

    /// ``logLikelihood(_:model:section:)`` for a position given by its own path-loss column.
    static func logLikelihood(_ links: [(g: Int, x: Double, variance: Double, power: Double)], pathLoss: [[Double]], position k: Int) -> Double {
        logLikelihoodAndOffset(links, pathLoss: pathLoss, position: k).0
    }

    /// The log-likelihood of the heard links at position `k`, and the device offset it profiled.
    static func logLikelihoodAndOffset(_ links: [(g: Int, x: Double, variance: Double, power: Double)], pathLoss: [[Double]], position k: Int) -> (Double, Double) {
        var sw = 0.0, swr = 0.0
        for l in links {
            let w = 1 / (HMM.modelSigma * HMM.modelSigma + l.variance)
            sw += w
            swr += w * (l.x - (l.power + pathLoss[l.g][k]))
        }
        let b = swr / (sw + 1 / (HMM.offsetSigma * HMM.offsetSigma))
        var ll = -0.5 * b * b / (HMM.offsetSigma * HMM.offsetSigma)
        for l in links {
            let w = 1 / (HMM.modelSigma * HMM.modelSigma + l.variance)
            let r = l.x - (l.power + pathLoss[l.g][k]) - b
            ll -= 0.5 * w * r * r
        }
        return (ll, b)
    }
}
