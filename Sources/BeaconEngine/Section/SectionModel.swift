import Foundation

/// The expected radio picture of each section of one store, for the `hmm` rule and the street test.
///
/// For gateway `g` and section `s`, the path-loss term `L[g][s] = −10·n_g·log10(d)` where `d` is
/// the distance from the gateway to the section's centre (3-D, gateways assumed
/// ``SectionModel/mountHeight`` above a phone). The centre is the polygon's centroid, else the mean
/// of the section's gateway positions. Without geometry the distance comes from the adjacency graph:
/// ``SectionModel/ownDistance`` inside the section, plus ``SectionModel/hopDistance`` per section
/// between. The expected RSSI is then the advert's measured power plus `L`.
struct SectionModel: Sendable {
    /// Sections of the store, as global indices (position = local index).
    let sections: [Int]
    /// Global section index → local index, for this store's sections.
    let local: [Int: Int]
    /// `pathLoss[g local][s local]`, dB (negative).
    let pathLoss: [[Double]]

    static let mountHeight = 1.5
    static let ownDistance = 2.5
    static let hopDistance = 7.0
    /// Model error of the expected RSSI (walls, shelves, antenna patterns), dB.
    static let modelSigma = 6.0
    /// Prior spread of a device's common offset (its transmit power and the body around it), dB.
    static let offsetSigma = 6.0

    init(chain: Chain, store: Int) {
        let sections = Array(chain.stores[store].sections)
        self.sections = sections
        var local: [Int: Int] = [:]
        for (i, s) in sections.enumerated() { local[s] = i }
        self.local = local
        let gateways = chain.stores[store].gateways

        let centres: [Chain.Point?] = sections.map { s in
            if let polygon = chain.sections[s].polygon, polygon.count >= 3 { return Self.centroid(polygon) }
            let positions = chain.sections[s].gateways.compactMap { chain.gateways[$0].position }
            guard !positions.isEmpty else { return nil }
            return Chain.Point(x: positions.map(\.x).reduce(0, +) / Double(positions.count),
                               y: positions.map(\.y).reduce(0, +) / Double(positions.count))
        }
        pathLoss = gateways.map { g in
            let gateway = chain.gateways[g]
            return sections.enumerated().map { (j, s) in
                let d: Double
                // A section on another floor: the gateway a storey further off and behind its floor.
                let (height, loss) = chain.vertical(gateway: g, section: s, mountHeight: Self.mountHeight)
                if let p = gateway.position, let c = centres[j] {
                    let dx = p.x - c.x, dy = p.y - c.y
                    d = (dx * dx + dy * dy + height * height).squareRoot()
                } else {
                    let hops = chain.hops(from: gateway.section, to: s)
                    d = Self.ownDistance + Self.hopDistance * Double(min(hops, 6))
                }
                return -10 * gateway.pathLossExponent * log10(max(d, 0.5)) - loss
            }
        }
    }

    /// log p(links | section) with the device's common offset `b` (transmit power, body) profiled
    /// out under a N(0, σ_b²) prior: residuals `r_g = x_g − (power_g + L[g][s])`, weights
    /// `w_g = 1/(σ_model² + P_g)`, `b̂ = Σw·r / (Σw + 1/σ_b²)`; each gateway that missed the device
    /// adds log P(its level below the floor) under the same offset.
    static func logLikelihood(_ links: [FreshLink], missed: [MissedGateway] = [], power: Double = 0, model: SectionModel,
                              section s: Int) -> Double {
        var sw = 0.0, swr = 0.0
        for l in links {
            let w = 1 / (modelSigma * modelSigma + l.variance)
            let r = l.x - (l.power + model.pathLoss[l.g][s])
            sw += w
            swr += w * r
        }
        let b = swr / (sw + 1 / (offsetSigma * offsetSigma))
        var ll = -0.5 * b * b / (offsetSigma * offsetSigma)
        for l in links {
            let w = 1 / (modelSigma * modelSigma + l.variance)
            let r = l.x - (l.power + model.pathLoss[l.g][s]) - b
            ll -= 0.5 * w * r * r
        }
        for m in missed {
            ll += Gaussian.logCDF((m.floor - (power + model.pathLoss[m.g][s] + b)) / modelSigma)
        }
        return ll
    }

    /// Area centroid of a simple polygon (vertex mean when degenerate).
    static func centroid(_ p: [Chain.Point]) -> Chain.Point {
        var a = 0.0, cx = 0.0, cy = 0.0
        for i in p.indices {
            let j = (i + 1) % p.count
            let cross = p[i].x * p[j].y - p[j].x * p[i].y
            a += cross
            cx += (p[i].x + p[j].x) * cross
            cy += (p[i].y + p[j].y) * cross
        }
        if abs(a) < 1e-9 {
            return Chain.Point(x: p.map(\.x).reduce(0, +) / Double(p.count), y: p.map(\.y).reduce(0, +) / Double(p.count))
        }
        return Chain.Point(x: cx / (3 * a), y: cy / (3 * a))
    }
}
