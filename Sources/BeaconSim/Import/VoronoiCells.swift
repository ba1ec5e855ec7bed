public import BeaconEngine

/// Voronoi cells cut to an outline: for each site, the part of the outline nearer to it than to
/// any other site — how a floor is zoned when its receivers are all one knows of it.
public enum VoronoiCells {
    /// Each site's cell within `outline`, in the sites' order. The outline may be concave: a cell
    /// is then one polygon whose pieces are joined by zero-width seams along the cut, which the
    /// even-odd containment test and the area both ignore.
    public static func cells(of sites: [Chain.Point], within outline: [Chain.Point]) -> [[Chain.Point]] {
        sites.indices.map { i in
            var cell = outline
            for j in sites.indices where j != i {
                // Nearer to site i than to site j: 2 p·(sj − si) ≤ |sj|² − |si|².
                let a = 2 * (sites[j].x - sites[i].x), b = 2 * (sites[j].y - sites[i].y)
                let c = sites[j].x * sites[j].x + sites[j].y * sites[j].y - sites[i].x * sites[i].x - sites[i].y * sites[i].y
                cell = clip(cell, a: a, b: b, c: c)
            }
            return cell
        }
    }

    /// `polygon` cut to the half-plane a·x + b·y ≤ c (Sutherland–Hodgman), repeated points dropped.
    static func clip(_ polygon: [Chain.Point], a: Double, b: Double, c: Double) -> [Chain.Point] {
        guard !polygon.isEmpty else { return [] }
        func inside(_ p: Chain.Point) -> Bool { a * p.x + b * p.y <= c }
        func crossing(_ p: Chain.Point, _ q: Chain.Point) -> Chain.Point {
            let fp = a * p.x + b * p.y - c, fq = a * q.x + b * q.y - c
            let u = fp / (fp - fq)
            return Chain.Point(x: p.x + u * (q.x - p.x), y: p.y + u * (q.y - p.y))
        }
        var out: [Chain.Point] = []
        for i in polygon.indices {
            let p = polygon[i], q = polygon[(i + 1) % polygon.count]
            if inside(p) { out.append(p) }
            if inside(p) != inside(q) { out.append(crossing(p, q)) }
        }
        return withoutRepeats(out)
    }

    /// `polygon` without consecutive repeated points (the closing one included).
    static func withoutRepeats(_ polygon: [Chain.Point]) -> [Chain.Point] {
        var out: [Chain.Point] = []
        for p in polygon where out.last.map({ abs($0.x - p.x) > 1e-9 || abs($0.y - p.y) > 1e-9 }) ?? true { out.append(p) }
        while out.count > 1, abs(out[0].x - out[out.count - 1].x) <= 1e-9, abs(out[0].y - out[out.count - 1].y) <= 1e-9 { out.removeLast() }
        return out
    }

    /// The area of a simple polygon (shoelace), m²; seams add nothing.
    public static func area(_ polygon: [Chain.Point]) -> Double {
        var twice = 0.0
        for i in polygon.indices {
            let p = polygon[i], q = polygon[(i + 1) % polygon.count]
            twice += p.x * q.y - q.x * p.y
        }
        return abs(twice) / 2
    }
}
