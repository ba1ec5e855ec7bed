import Foundation

/// The `position` rule's picture of one store: a grid of positions (cells) inside its sections'
/// polygons, and the path-loss term from each of the store's gateways to each cell.
///
/// The grid step is max(``minimumStep``, √(area / ``maximumCells``)), to the centimetre, so a
/// store has at most about 500 cells whatever its size (0.5 m on a flat, 1.2 m on a 720 m² shop):
/// the cost of a decision is cells × fresh links. Cells are the centres of a step-spaced grid over
/// the polygons' bounding box that fall inside a section's polygon — the first in the store's
/// order on its floor, where polygons overlap. A section too small to hold a grid centre gets its
/// polygon's centroid, so that every section has evidence.
///
/// For cell `c` and the store's gateway `g`, `L[c][g] = −10·n_g·log10(max(0.5 m, √(d² + h²))) − f·F`:
/// `d` the distance on the plan, `h` the store's `mount_height_m` (how far the gateways sit above
/// a phone) plus 3 m for each floor the gateway is above the cell (less, below), `n_g` the
/// gateway's path-loss exponent, `f` the floors between them and `F` the tuning's `floor_db`.
///
/// A class: the rule reads it once per decision, and a struct copy would retain each of its arrays.
final class PositionModel: Sendable {
    /// The finest grid step, m: finer than the radio can tell apart, and a flat's cells stay few.
    static let minimumStep = 0.5
    /// The cells a store's area is divided into, at most (about): 500 keep a decision to a few
    /// thousand multiply-adds; fewer (150) decide as well on the simulator and within a couple
    /// of points on the Kolakowski flat.
    static let maximumCells = 500.0
    /// The nearest a phone is taken to be to a gateway, m: the log-distance model's reference.
    static let nearest = 0.5

    /// The store's first section in ``Chain/sections``: local section = section − this.
    let firstSection: Int
    /// Sections of the store.
    let sectionCount: Int
    /// The grid step, m.
    let step: Double
    /// Every cell, section by section.
    let cells: [Chain.Point]
    /// Per local section, its cells' indices in ``cells``.
    let sectionCells: [Range<Int>]
    /// The store's gateways.
    let gatewayCount: Int
    /// `L[c][g]` at `[g × cells.count + c]`, over the store's gateways in local order (that of
    /// ``SectionEvidence/links``), dB: gateway-major, so that a decision runs down each fresh
    /// link's column of cells in order (the loop vectorises).
    let pathLoss: [Double]
    /// Per `[from × sectionCount + to]` (local), the sections walked through from one to the other,
    /// 1…8 (0 from a section to itself; 8 also for one that cannot be reached).
    let hops: [UInt8]

    /// Nil when the store lacks the geometry: a polygon for every section and a position for every
    /// gateway.
    init?(chain: Chain, store: Int) {
        guard Self.hasGeometry(chain, store: store) else { return nil }
        let sections = chain.stores[store].sections
        let gateways = chain.stores[store].gateways
        // Checked: every section has a polygon.
        let polygons = sections.map { chain.sections[$0].polygon! }
        firstSection = sections.lowerBound
        sectionCount = sections.count
        let area = polygons.reduce(0) { $0 + Self.area($1) }
        step = (max(Self.minimumStep, (area / Self.maximumCells).squareRoot()) * 100).rounded() / 100
        let grid = Self.grid(polygons, floors: sections.map { chain.sections[$0].floor }, step: step)
        var cells: [Chain.Point] = []
        var ranges: [Range<Int>] = []
        var cellSections: [Int] = []
        for (j, sectionCells) in grid.enumerated() {
            ranges.append(cells.count..<cells.count + sectionCells.count)
            cells += sectionCells
            cellSections += Array(repeating: sections.lowerBound + j, count: sectionCells.count)
        }
        self.cells = cells
        sectionCells = ranges
        let h = chain.stores[store].mountHeight
        gatewayCount = gateways.count
        pathLoss = gateways.flatMap { g in
            let gateway = chain.gateways[g]
            // Checked: every gateway of the store has a position.
            let p = gateway.position!
            return zip(cells, cellSections).map { cell, section in
                // A cell on another floor: the gateway a storey further off and behind its floor.
                let (height, loss) = chain.vertical(gateway: g, section: section, mountHeight: h)
                let dx = p.x - cell.x, dy = p.y - cell.y
                return -10 * gateway.pathLossExponent * log10(max(Self.nearest, (dx * dx + dy * dy + height * height).squareRoot())) - loss
            }
        }
        hops = sections.flatMap { a in
            sections.map { b in a == b ? 0 : UInt8(min(max(chain.hops(from: a, to: b), 1), 8)) }
        }
    }

    /// Whether `store` has what the model needs: a polygon for every section, a position for
    /// every gateway.
    static func hasGeometry(_ chain: Chain, store: Int) -> Bool {
        let gateways = chain.stores[store].gateways
        return chain.stores[store].sections.allSatisfy { (chain.sections[$0].polygon?.count ?? 0) >= 3 }
            && !gateways.isEmpty && gateways.allSatisfy { chain.gateways[$0].position != nil }
    }

    /// `L[c][g]`, dB.
    func loss(cell c: Int, gateway g: Int) -> Double { pathLoss[g * cells.count + c] }

    /// The local index of `section`, if it is one of the store's.
    func local(_ section: Int) -> Int? {
        let s = section - firstSection
        return (0..<sectionCount).contains(s) ? s : nil
    }

    /// Per section (local order), the log-likelihood of its best-fitting cell, into `evidence`
    /// (``sectionCount`` long): with residuals `r_g = x_g − power_g − L[c][g]` and weights
    /// `w_g = 1/(σm² + P_g)` — `P_g` the link's variance now, its age's drift included —
    /// `ll_c = −½·(Σw·r² − (Σw·r)²/Σw)`: the weighted fit with the device's common offset
    /// (transmit power, body, the receivers' level) profiled out under a flat prior. False, and
    /// `evidence` untouched, with fewer than two links: one link fits every cell exactly, so it
    /// says nothing of where the device is. Allocates nothing: the decision's hot path.
    func sectionEvidence(_ links: UnsafeBufferPointer<FreshLink>, modelSigma: Double,
                         into evidence: UnsafeMutableBufferPointer<Double>) -> Bool {
        let n = links.count
        guard n >= 2 else { return false }
        let sigma2 = modelSigma * modelSigma
        // Per link its weight; the levels centred on their weighted mean (the offset is profiled
        // out, so the mean changes nothing but keeps the sums small).
        var sw = 0.0, swa = 0.0
        for l in links {
            let w = 1 / (sigma2 + l.variance)
            sw += w
            swa += w * (l.x - l.power)
        }
        let mean = swa / sw
        var swaa = 0.0
        for l in links {
            let a = l.x - l.power - mean
            swaa += a * a / (sigma2 + l.variance)
        }
        let count = cells.count
        // Per cell Σw·L, Σw·L² and Σw·a·L; then Σw·r = −Σw·L (Σw·a is 0) and
        // Σw·r² = Σw·a² − 2·Σw·a·L + Σw·L².
        return withUnsafeTemporaryAllocation(of: Double.self, capacity: 3 * count) { sums in
            let swl = UnsafeMutableBufferPointer(rebasing: sums[0..<count])
            let swll = UnsafeMutableBufferPointer(rebasing: sums[count..<2 * count])
            let swal = UnsafeMutableBufferPointer(rebasing: sums[2 * count..<3 * count])
            for c in 0..<count {
                swl[c] = 0
                swll[c] = 0
                swal[c] = 0
            }
            pathLoss.withUnsafeBufferPointer { loss in
                for l in links {
                    let w = 1 / (sigma2 + l.variance), a = l.x - l.power - mean
                    let column = UnsafeBufferPointer(rebasing: loss[l.g * count..<(l.g + 1) * count])
                    for c in 0..<count {
                        let wl = w * column[c]
                        swl[c] += wl
                        swll[c] += wl * column[c]
                        swal[c] += wl * a
                    }
                }
            }
            for (s, range) in sectionCells.enumerated() {
                var best = -Double.infinity
                for c in range { best = max(best, -0.5 * (swaa - 2 * swal[c] + swll[c] - swl[c] * swl[c] / sw)) }
                evidence[s] = best
            }
            return true
        }
    }

    /// One cell's log-likelihood, written plainly: what ``sectionEvidence(_:modelSigma:into:)``
    /// takes the best of, per section (tests hold the two equal).
    func logLikelihood(_ links: [FreshLink], modelSigma: Double, cell c: Int) -> Double {
        let w = links.map { 1 / (modelSigma * modelSigma + $0.variance) }
        let r = links.map { $0.x - $0.power - loss(cell: c, gateway: $0.g) }
        let sw = w.reduce(0, +)
        let swr = zip(w, r).reduce(0) { $0 + $1.0 * $1.1 }
        let swrr = zip(w, r).reduce(0) { $0 + $1.0 * $1.1 * $1.1 }
        return -0.5 * (swrr - swr * swr / sw)
    }

    /// Per polygon, the centres of a `step`-spaced grid over all the polygons' bounding box that
    /// fall inside it and in no polygon before it on its floor (`floors`, one per polygon; nil:
    /// all on one); its centroid when none does.
    static func grid(_ polygons: [[Chain.Point]], floors: [Int]? = nil, step: Double) -> [[Chain.Point]] {
        let floors = floors ?? Array(repeating: 0, count: polygons.count)
        let points = polygons.joined()
        let x0 = points.map(\.x).min()!, x1 = points.map(\.x).max()!
        let y0 = points.map(\.y).min()!, y1 = points.map(\.y).max()!
        var cells = [[Chain.Point]](repeating: [], count: polygons.count)
        var j = 0
        while y0 + step * (Double(j) + 0.5) < y1 {
            var i = 0
            while x0 + step * (Double(i) + 0.5) < x1 {
                let p = Chain.Point(x: x0 + step * (Double(i) + 0.5), y: y0 + step * (Double(j) + 0.5))
                // One section per floor holds each point: upstairs lies over downstairs.
                var claimed = Set<Int>()
                for (s, polygon) in polygons.enumerated() where !claimed.contains(floors[s]) && Chain.contains(polygon, p) {
                    cells[s].append(p)
                    claimed.insert(floors[s])
                }
                i += 1
            }
            j += 1
        }
        for s in cells.indices where cells[s].isEmpty { cells[s] = [SectionModel.centroid(polygons[s])] }
        return cells
    }

    /// The area of a simple polygon, m² (shoelace).
    static func area(_ p: [Chain.Point]) -> Double {
        var twice = 0.0
        for i in p.indices {
            let j = (i + 1) % p.count
            twice += p[i].x * p[j].y - p[j].x * p[i].y
        }
        return abs(twice) / 2
    }
}
