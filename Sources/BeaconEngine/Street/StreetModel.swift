import Foundation

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
            // The stairs between floors are no wall: their floors are counted as `floor_db`.
            let floors = abs(chain.sections[a].floor - chain.sections[b].floor)
            let h = min(max(chain.hops(from: a, to: b) - floors, 0), 6)
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
                    // A section on another floor: the gateway a storey further off and behind its floor.
                    let (h, loss) = chain.vertical(gateway: g, section: section, mountHeight: SectionModel.mountHeight)
                    let dx = p.x - q.x, dy = p.y - q.y
                    let d = (dx * dx + dy * dy + h * h).squareRoot()
                    values.append(-10 * gateway.pathLossExponent * log10(max(d, 0.5)) - walls(section, gateway.section) - loss - extra)
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
