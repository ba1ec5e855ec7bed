public import BeaconEngine

/// Geometry of one store for the simulator: section polygons, doors between adjacent sections
/// (the midpoint of their shared edge), the street door, gateway positions.
public struct FloorPlan: Sendable {
    /// Global section indices of this store, in local order.
    public let sections: [Int]
    /// Polygon of each local section.
    let polygons: [[Chain.Point]]
    /// The storey of each local section (the chain's `floor`).
    let storeys: [Int]
    /// Local neighbours of each local section.
    let neighbours: [[Int]]
    /// Door point between two local sections (shared-edge midpoint, or the centres' midpoint).
    let doors: [[Chain.Point?]]
    /// Local sections with a street door, and where (outside the polygon, 3 m out).
    let streetDoors: [(section: Int, inside: Chain.Point, outside: Chain.Point)]

    /// Builds the plan of `store`; nil when a section lacks a polygon (the simulator needs them).
    public init?(chain: Chain, store: Int) {
        let sections = Array(chain.stores[store].sections)
        var polygons: [[Chain.Point]] = []
        for s in sections {
            guard let p = chain.sections[s].polygon else { return nil }
            polygons.append(p)
        }
        self.sections = sections
        self.polygons = polygons
        let storeys = sections.map { chain.sections[$0].floor }
        self.storeys = storeys
        var local: [Int: Int] = [:]
        for (i, s) in sections.enumerated() { local[s] = i }
        neighbours = sections.map { s in
            (chain.sections[s].adjacent.map { Array($0) } ?? sections.filter { $0 != s }).compactMap { local[$0] }.sorted()
        }
        var doors = Array(repeating: [Chain.Point?](repeating: nil, count: sections.count), count: sections.count)
        for a in sections.indices {
            for b in sections.indices where a != b {
                doors[a][b] = storeys[a] == storeys[b]
                    ? Self.sharedEdgeMidpoint(polygons[a], polygons[b]) ?? Self.midpoint(Self.centre(polygons[a]), Self.centre(polygons[b]))
                    : Self.stairs(polygons[min(a, b)], polygons[max(a, b)])
            }
        }
        self.doors = doors
        // The street door: the midpoint of the section's edge on the store's outline nearest the
        // origin side (y minimum), 3 m outside.
        var street: [(Int, Chain.Point, Chain.Point)] = []
        for (i, s) in sections.enumerated() {
            guard let (door, out) = chain.sections[s].streetDoorway else { continue }
            street.append((i, Chain.Point(x: door.x - out.x, y: door.y - out.y),
                           Chain.Point(x: door.x + 3 * out.x, y: door.y + 3 * out.y)))
        }
        streetDoors = street
    }

    /// The local section on `storey` containing `p`, or nil (outside the store).
    public func section(at p: Chain.Point, storey: Int) -> Int? {
        polygons.indices.first { storeys[$0] == storey && Chain.contains(polygons[$0], p) }
    }

    /// The waypoint at `point` on the way from local section `a` into the adjacent `b`: where
    /// they are on different floors, the person is on `b`'s once there.
    func step(from a: Int, to b: Int, through point: Chain.Point) -> Waypoint {
        Waypoint(point, storey: storeys[a] == storeys[b] ? nil : storeys[b])
    }

    /// Where the stairs between two sections on different floors are: in both at once, so that
    /// whoever takes them is in a section on either floor — midway between their centres where
    /// that lies in both, else the point of a 0.25 m grid over their overlap nearest to it; where
    /// they do not overlap, on the plan between them as on one floor.
    static func stairs(_ a: [Chain.Point], _ b: [Chain.Point]) -> Chain.Point {
        let between = midpoint(centre(a), centre(b))
        if Chain.contains(a, between) && Chain.contains(b, between) { return between }
        let xs = a.map(\.x), ys = a.map(\.y)
        var best: (distance: Double, point: Chain.Point)?
        for x in stride(from: xs.min()!, through: xs.max()!, by: 0.25) {
            for y in stride(from: ys.min()!, through: ys.max()!, by: 0.25) {
                let p = Chain.Point(x: x, y: y)
                guard Chain.contains(a, p) && Chain.contains(b, p) else { continue }
                let d = (p.x - between.x) * (p.x - between.x) + (p.y - between.y) * (p.y - between.y)
                if d < best?.distance ?? .infinity { best = (d, p) }
            }
        }
        return best?.point ?? sharedEdgeMidpoint(a, b) ?? between
    }

    /// A uniformly random point inside a local section, kept 1 m from its edges where possible.
    func randomPoint(in section: Int, _ random: inout SeededRandom) -> Chain.Point {
        let p = polygons[section]
        let minX = p.map(\.x).min()!, maxX = p.map(\.x).max()!
        let minY = p.map(\.y).min()!, maxY = p.map(\.y).max()!
        for _ in 0..<50 {
            let q = Chain.Point(x: minX + 1 + random.unit() * max(0, maxX - minX - 2),
                                y: minY + 1 + random.unit() * max(0, maxY - minY - 2))
            if Chain.contains(p, q) { return q }
        }
        return Self.centre(p)
    }

    /// Section boundaries on the way from local section `a` to `b` on one floor: the stairs are
    /// no wall (their floor's loss is counted apart).
    func walls(from a: Int, to b: Int) -> Int {
        let path = path(from: a, to: b)
        return zip(path, path.dropFirst()).filter { storeys[$0.0] == storeys[$0.1] }.count
    }

    /// Breadth-first path of local sections from `a` to `b`, both included.
    func path(from a: Int, to b: Int) -> [Int] {
        if a == b { return [a] }
        var previous = [Int?](repeating: nil, count: sections.count)
        var seen: Set<Int> = [a]
        var queue = [a]
        while !queue.isEmpty {
            let s = queue.removeFirst()
            for n in neighbours[s] where seen.insert(n).inserted {
                previous[n] = s
                if n == b {
                    var path = [b]
                    var c = b
                    while let p = previous[c] { path.append(p); c = p }
                    return path.reversed()
                }
                queue.append(n)
            }
        }
        return [a, b]
    }

    static func centre(_ p: [Chain.Point]) -> Chain.Point {
        Chain.Point(x: p.map(\.x).reduce(0, +) / Double(p.count), y: p.map(\.y).reduce(0, +) / Double(p.count))
    }

    static func midpoint(_ a: Chain.Point, _ b: Chain.Point) -> Chain.Point {
        Chain.Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2)
    }

    /// Midpoint of the overlap of two collinear edges, one from each polygon, if they share one.
    static func sharedEdgeMidpoint(_ a: [Chain.Point], _ b: [Chain.Point]) -> Chain.Point? {
        for i in a.indices {
            let a1 = a[i], a2 = a[(i + 1) % a.count]
            for j in b.indices {
                let b1 = b[j], b2 = b[(j + 1) % b.count]
                if abs(a1.x - a2.x) < 1e-9, abs(b1.x - b2.x) < 1e-9, abs(a1.x - b1.x) < 1e-9 {
                    let lo = max(min(a1.y, a2.y), min(b1.y, b2.y)), hi = min(max(a1.y, a2.y), max(b1.y, b2.y))
                    if hi - lo > 0.5 { return Chain.Point(x: a1.x, y: (lo + hi) / 2) }
                }
                if abs(a1.y - a2.y) < 1e-9, abs(b1.y - b2.y) < 1e-9, abs(a1.y - b1.y) < 1e-9 {
                    let lo = max(min(a1.x, a2.x), min(b1.x, b2.x)), hi = min(max(a1.x, a2.x), max(b1.x, b2.x))
                    if hi - lo > 0.5 { return Chain.Point(x: (lo + hi) / 2, y: a1.y) }
                }
            }
        }
        return nil
    }
}
