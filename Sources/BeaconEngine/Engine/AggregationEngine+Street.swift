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
    /// Away from a street-door section a P(street) below this is not updated (the walk to the door
    /// comes first), which spares most devices the test.
    static let negligible = 1e-3
    /// P(street) is kept within these bounds, so that no single reading can make either state
    /// certain.
    static let floorProbability = 1e-6
    static let ceilingProbability = 1 - 1e-9
    /// Below this P(street) a device seen leaving may enter again.
    static let reentryProbability = 0.5
    /// How long after a street exit re-entry needs the street test's consent, ms.
    static let reentryGuard: Int64 = 120_000
    /// Shadowing (people, trolleys, the body) stays correlated for seconds, so successive readings
    /// are not independent evidence: the likelihood ratio counts in full once per this many seconds.
    static let evidenceTime = 3.0
    /// The filter steps at most this often per device: often enough for the evidence time above.
    static let stepMilliseconds: Int64 = 1000
    /// In-store positions tried per section: a grid of this many columns and rows over its polygon,
    /// so that a phone in a corner is not mistaken for one outside.
    static let grid = 4
    /// log Φ at z = −8 + i/64, i = 0 … 13·64 (see ``AggregationEngine/logNormalCDF(_:)``).
    static let logCDFTable: [Double] = (0...(13 * 64)).map { i in
        let z = -8 + Double(i) / 64
        return log(0.5 * erfc(-z / 2.0.squareRoot()))
    }
}

/// A fresh link as the likelihoods read it: the gateway's index among its store's gateways, the
/// filtered RSSI and its variance, dB and dB², and the advert's measured power, dBm.
typealias FreshLink = (g: Int, x: Double, variance: Double, power: Double)
/// A gateway of the store that did not hear the device, and the level below which it would not
/// have (its reception floor, dBm): a censored reading.
typealias MissedGateway = (g: Int, floor: Double)

/// Path-loss terms of a set of positions, position-major: `values[k * gateways + g]` for position
/// `k` and the store's local gateway `g`, dB.
struct PathLossTable: Sendable {
    let positions: Int
    let gateways: Int
    let values: [Double]
}

/// Expected radio picture of the street outside one store's doors, for the street test. A class:
/// the engine reads it once a second per device, and a struct copy would retain each of its arrays.
final class StreetModel: Sendable {
    /// The store's sections, as the HMM sees them.
    let sections: SectionModel
    /// Path-loss terms (storefront included) from each gateway to each street position, dB.
    let pathLoss: PathLossTable
    /// The same to each in-store position (a grid over every section).
    let insideLoss: PathLossTable
    /// Per local section, its positions in ``insideLoss``.
    let insidePositions: [Range<Int>]
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
        var ranges: [Range<Int>] = []
        for s in sectionModel.sections {
            guard let polygon = chain.sections[s].polygon, polygon.count >= 3 else { return nil }
            let start = inside.count
            inside += Self.grid(polygon).map { ($0, s) }
            ranges.append(start..<inside.count)
        }
        insidePositions = ranges
        sections = sectionModel
        doorSections = doors
        self.gateways = gateways
        var hops: [Int: Int] = [:]  // (section, gateway section) → boundaries between them
        func walls(_ a: Int, _ b: Int) -> Double {
            let key = a * chain.sections.count + b
            if let h = hops[key] { return Double(h) * chain.tuning.wallDB }
            let h = min(chain.hops(from: a, to: b), 6)
            hops[key] = h
            return Double(h) * chain.tuning.wallDB
        }
        func loss(_ points: [(Chain.Point, Int)], extra: Double) -> PathLossTable {
            var values: [Double] = []
            values.reserveCapacity(points.count * gateways.count)
            for (q, section) in points {
                for g in gateways {
                    let gateway = chain.gateways[g]
                    let p = gateway.position!
                    let dx = p.x - q.x, dy = p.y - q.y
                    let d = (dx * dx + dy * dy + SectionModel.mountHeight * SectionModel.mountHeight).squareRoot()
                    values.append(-10 * gateway.pathLossExponent * log10(max(d, 0.5)) - walls(section, gateway.section) - extra)
                }
            }
            return PathLossTable(positions: points.count, gateways: gateways.count, values: values)
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
                if Chain.contains(polygon, p) { points.append(p) }
            }
        }
        return points.isEmpty ? [SectionModel.centroid(polygon)] : points
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
        if last != .min && t - last < Street.stepMilliseconds { return tracks[ti].streetP >= Street.exitProbability }
        let dt = last == .min ? 1 : Double(t - last) / 1000
        tracks[ti].streetTime = t
        var p = tracks[ti].streetP
        // Predict: only a street-door section leads out.
        let own = tracks[ti].section >= 0 ? model.sections.local[tracks[ti].section] : nil
        let atDoor = tracks[ti].state != .inside || own.map { model.doorSections.contains($0) } ?? true
        if !atDoor && p < Street.negligible {
            // Deep in the store and nowhere near leaving: the walk to the door comes first.
            tracks[ti].streetP = 0
            return false
        }
        let leave = atDoor ? 1 - exp(-dt / Street.stayTime) : 0
        let back = 1 - exp(-dt / Street.returnTime)
        p = p * (1 - back) + (1 - p) * leave
        let weight = min(1, dt / Street.evidenceTime)
        // Evidence for "inside" beyond this leaves P(street) at its floor whatever its exact size
        // (p·r / (p·r + 1 − p) ≤ floor for every ratio r ≤ e^(−weight·cutoff)), so the search for
        // the best in-store position may stop once one position reaches it.
        let floor = Street.floorProbability
        let cutoff = -log(floor * (1 - p) / (p * (1 - floor))) / weight
        if let evidence = streetEvidence(ti, model: model, section: own, at: t, insideCutoff: weight * cutoff <= 50 ? cutoff : .infinity) {
            let ratio = exp(max(-50, min(50, weight * evidence)))
            p = p * ratio / (p * ratio + (1 - p))
        }
        tracks[ti].streetP = min(max(p, Street.floorProbability), Street.ceilingProbability)
        return tracks[ti].streetP >= Street.exitProbability
    }

    /// log p(readings | street) − log p(readings | inside), each at its best position; nil when no
    /// link of the store is fresh. When some in-store position beats the street by
    /// `insideCutoff` the search stops there (the device's own `section`, local, is tried first),
    /// and the result is only known to be ≤ −`insideCutoff`. Scratch space is on the stack: this
    /// runs once a second for every device near a street door.
    func streetEvidence(_ ti: Int, model: StreetModel, section own: Int?, at t: Int64, insideCutoff: Double = .infinity) -> Double? {
        withUnsafeTemporaryAllocation(of: FreshLink.self, capacity: DeviceTrack.maxLinks) { buffer -> Double? in
            let n = freshLinks(ti, at: t, into: buffer)
            guard n > 0 else { return nil }
            let fresh = UnsafeBufferPointer(rebasing: buffer[..<n])
            var power = 0.0
            for l in fresh { power += l.power }
            power /= Double(n)
            return withUnsafeTemporaryAllocation(of: MissedGateway.self, capacity: model.gateways.count) { scratch in
                // Gateways of the store that have not heard it lately: each says "too weak here".
                let m = missedGateways(ti, of: model.gateways, fresh: fresh, at: t, into: scratch)
                let missed = UnsafeBufferPointer(rebasing: scratch[..<m])
                let street = Self.bestLogLikelihood(fresh, missed: missed, power: power, table: model.pathLoss)
                let inside = Self.bestLogLikelihood(
                    fresh, missed: missed, power: power, table: model.insideLoss,
                    first: own.map { model.insidePositions[$0] } ?? 0..<0, enough: street + insideCutoff)
                return street - inside
            }
        }
    }

    /// The best position's log-likelihood, heard and missed gateways together — exactly, by
    /// branch and bound: the missed-gateway terms (the costly part) are never positive, so a
    /// position whose heard-links likelihood is already below the best complete one cannot win.
    /// The same sums as ``logLikelihood(_:missed:power:table:position:)``, over a position-major
    /// table (a test holds the two equal).
    ///
    /// With `enough` finite, the positions `first` are tried first, and the first position whose
    /// likelihood reaches `enough` is returned at once: the result is then ≥ `enough` and ≤ the
    /// best, and otherwise exactly the best.
    static func bestLogLikelihood(_ links: UnsafeBufferPointer<FreshLink>, missed: UnsafeBufferPointer<MissedGateway>,
                                  power: Double, table: PathLossTable,
                                  first: Range<Int> = 0..<0, enough: Double = .infinity) -> Double {
        let count = table.positions
        guard count > 0, !links.isEmpty else { return -.infinity }
        let n = links.count
        let prior = 1 / (HMM.offsetSigma * HMM.offsetSigma)
        return table.values.withUnsafeBufferPointer { loss in
            Street.logCDFTable.withUnsafeBufferPointer { logCDF in
            withUnsafeTemporaryAllocation(of: Double.self, capacity: 2 * n + 2 * count) { scratch in
                // Per link: weight w and residual a before the path loss, and their sums; per
                // position: bound and offset.
                var sw = 0.0, swa = 0.0, swaa = 0.0
                for i in 0..<n {
                    let l = links[i]
                    let w = 1 / (HMM.modelSigma * HMM.modelSigma + l.variance)
                    let a = l.x - l.power
                    scratch[i] = w
                    scratch[n + i] = a
                    sw += w
                    swa += w * a
                    swaa += w * a * a
                }
                let stride = table.gateways
                let d = sw + prior
                // The heard links' log-likelihood at position k, and the device's offset there, in
                // one pass: with residuals r = a − L, b = Σw·r / d and
                // −½·b²·prior − ½·Σw·(r − b)² = −½·(Σw·r² − (Σw·r)² / d).
                func heard(_ k: Int) -> (ll: Double, b: Double) {
                    let row = k * stride
                    var swl = 0.0, swll = 0.0, swal = 0.0
                    for i in 0..<n {
                        let pathLoss = loss[row + links[i].g]
                        let wl = scratch[i] * pathLoss
                        swl += wl
                        swll += wl * pathLoss
                        swal += wl * scratch[n + i]
                    }
                    let swr = swa - swl
                    return (-0.5 * (swaa - 2 * swal + swll - swr * swr / d), swr / d)
                }
                // Adds the missed gateways' terms to `ll` — each only lowers it — stopping once it
                // is at or below `bound`.
                func complete(_ k: Int, _ heardLL: Double, offset b: Double, above bound: Double) -> Double {
                    var ll = heardLL
                    let expected = power + b
                    let row = k * stride
                    for m in missed {
                        ll += logNormalCDF((m.floor - (expected + loss[row + m.g])) / HMM.modelSigma, table: logCDF)
                        if ll <= bound { return ll }
                    }
                    return ll
                }
                if enough < .infinity {
                    for k in first.clamped(to: 0..<count) {
                        let (ll, b) = heard(k)
                        guard ll >= enough else { continue }
                        let full = complete(k, ll, offset: b, above: enough.nextDown)
                        if full >= enough { return full }
                    }
                }
                var top = 0
                for k in 0..<count {
                    let (ll, b) = heard(k)
                    scratch[2 * n + k] = ll
                    scratch[2 * n + count + k] = b
                    if ll > scratch[2 * n + top] { top = k }
                }
                // The heard links' favourite first: its complete likelihood prunes most of the rest.
                var best = complete(top, scratch[2 * n + top], offset: scratch[2 * n + count + top], above: -.infinity)
                if best >= enough { return best }
                for k in 0..<count where k != top && scratch[2 * n + k] > best {
                    best = max(best, complete(k, scratch[2 * n + k], offset: scratch[2 * n + count + k], above: best))
                    if best >= enough { return best }
                }
                return best
            }
            }
        }
    }

    /// ``bestLogLikelihood(_:missed:power:table:)`` over arrays.
    static func bestLogLikelihood(_ links: [FreshLink], missed: [MissedGateway], power: Double, table: PathLossTable,
                                  first: Range<Int> = 0..<0, enough: Double = .infinity) -> Double {
        links.withUnsafeBufferPointer { l in
            missed.withUnsafeBufferPointer { m in bestLogLikelihood(l, missed: m, power: power, table: table, first: first, enough: enough) }
        }
    }

    /// log Φ(z): 0 above z = 5 (the error is under 3·10⁻⁷), the asymptotic series below −8, and
    /// in between a table at 1/64 steps, linearly interpolated (error under 10⁻⁴) — erfc and log
    /// per missed gateway and position were most of the engine's time.
    static func logNormalCDF(_ z: Double) -> Double {
        Street.logCDFTable.withUnsafeBufferPointer { logNormalCDF(z, table: $0) }
    }

    /// ``logNormalCDF(_:)`` with the table in hand (the hot loop fetches it once).
    @inline(__always)
    static func logNormalCDF(_ z: Double, table: UnsafeBufferPointer<Double>) -> Double {
        if z >= 5 { return 0 }
        if z <= -8 { return -0.5 * z * z - log(-z) - 0.918_938_533_204_672_7 }
        let u = (z + 8) * 64
        let i = Int(u)
        let f = u - Double(i)
        return table[i] * (1 - f) + table[i + 1] * f
    }

    /// One position's log-likelihood: the heard links with the device's common offset profiled out
    /// (as the HMM does), plus each gateway that did not hear the device, as log P(RSSI below its
    /// floor) under the same offset — a censored observation. The plain form of what
    /// ``bestLogLikelihood`` computes for every position at once.
    static func logLikelihood(_ links: [FreshLink], missed: [MissedGateway],
                              power: Double, table: PathLossTable, position k: Int) -> Double {
        let loss = { (g: Int) in table.values[k * table.gateways + g] }
        var sw = 0.0, swr = 0.0
        for l in links {
            let w = 1 / (HMM.modelSigma * HMM.modelSigma + l.variance)
            sw += w
            swr += w * (l.x - (l.power + loss(l.g)))
        }
        let b = swr / (sw + 1 / (HMM.offsetSigma * HMM.offsetSigma))
        var ll = -0.5 * b * b / (HMM.offsetSigma * HMM.offsetSigma)
        for l in links {
            let w = 1 / (HMM.modelSigma * HMM.modelSigma + l.variance)
            let r = l.x - (l.power + loss(l.g)) - b
            ll -= 0.5 * w * r * r
        }
        for m in missed {
            ll += logNormalCDF((m.floor - (power + loss(m.g) + b)) / HMM.modelSigma)
        }
        return ll
    }
}
