public import BeaconCore
public import BeaconEngine
import Foundation

/// How an imported floor is cut into sections: named polygons, each with the dataset's receivers
/// (anchors) installed in it. Section minors are the zones' positions in the list, from 1.
///
/// As a file (`beacon-sim import --zones FILE`):
/// `{"name":"rooms","zones":[{"name":"kitchen","polygon":[[0,0],[4,0],[4,3],[0,3]],"anchors":[1,4],"adjacent":[2]}]}`
/// in the dataset's frame, metres; `adjacent` (optional) lists the minors one can walk to directly.
public struct Zoning: Encodable, Sendable, Equatable {
    /// A name for the zoning, shown in the chain's comment.
    public var name: String
    /// The zones, minor 1 first.
    public var zones: [Zone]

    /// One zone: a section of the imported store.
    public struct Zone: Encodable, Sendable, Equatable {
        /// The section's name.
        public var name: String
        /// Its outline, `[[x, y], …]` in metres, in the dataset's frame.
        public var polygon: [[Double]]
        /// The dataset's ids of the receivers installed in it.
        public var anchors: [Int]
        /// Minors of the zones one can walk to directly; nil: any.
        public var adjacent: [Int]?

        /// A zone.
        public init(name: String, polygon: [[Double]], anchors: [Int], adjacent: [Int]? = nil) {
            self.name = name
            self.polygon = polygon
            self.anchors = anchors
            self.adjacent = adjacent
        }

        /// Reads a zone's object; nil where a required value cannot be used (reported).
        init?(reading o: inout ConfigObject) {
            let name = o.required("name", as: String.self)
            let polygon = o.required("polygon", expecting: "an array")?.array { point in point.array { $0.read(Double.self) } }
            let anchors = o.required("anchors", expecting: "an array")?.array { $0.read(Int.self) }
            let adjacent = o.member("adjacent")?.array { $0.read(Int.self) }
            o.comment()
            guard let name, let polygon, let anchors else { return nil }
            self.init(name: name, polygon: polygon, anchors: anchors, adjacent: adjacent)
        }
    }

    /// A zoning.
    public init(name: String, zones: [Zone]) {
        self.name = name
        self.zones = zones
    }

    /// The index of the zone holding `p`: the first whose polygon contains it, else (a position
    /// estimate just outside the outline, or inside a wall) the one whose outline is nearest.
    public func zone(at p: Chain.Point) -> Int {
        let polygons = zones.map { $0.polygon.map { Chain.Point(x: $0[0], y: $0[1]) } }
        if let inside = polygons.firstIndex(where: { Chain.contains($0, p) }) { return inside }
        return polygons.indices.min { Self.distance(p, to: polygons[$0]) < Self.distance(p, to: polygons[$1]) }!
    }

    /// The distance from `p` to the outline of `polygon`, metres.
    static func distance(_ p: Chain.Point, to polygon: [Chain.Point]) -> Double {
        var best = Double.infinity
        for i in polygon.indices {
            let a = polygon[i], b = polygon[(i + 1) % polygon.count]
            let dx = b.x - a.x, dy = b.y - a.y
            let length = dx * dx + dy * dy
            let u = length > 0 ? max(0, min(1, ((p.x - a.x) * dx + (p.y - a.y) * dy) / length)) : 0
            best = min(best, hypot(p.x - (a.x + u * dx), p.y - (a.y + u * dy)))
        }
        return best
    }

    /// Reads a zoning file; the errors name the file, and each problem in it its line, column
    /// and JSON path.
    public static func load(path: String) throws(ImportError) -> Zoning {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError(file: path, reason: "cannot read the zoning file (missing or not readable)")
        }
        do {
            return try parse(Array(data))
        } catch {
            var located = error
            located.file = path
            throw ImportError(file: path, reason: "not a zoning {\"name\",\"zones\":[{\"name\",\"polygon\",\"anchors\"}]}:\n\(located)")
        }
    }

    /// Reads a zoning from the JSON text of its file: every problem, with its JSON path.
    public static func parse(_ bytes: [UInt8]) throws(ConfigError) -> Zoning {
        let (root, reader) = try ConfigReader.parse(bytes)
        let zoning = reader.value(root).object { o -> Zoning? in
            let name = o.required("name", as: String.self)
            let zones = o.required("zones", expecting: "an array")?.array { $0.object { Zone(reading: &$0) } }
            o.comment()
            guard let name, let zones else { return nil }
            return Zoning(name: name, zones: zones)
        }
        guard let zoning, !reader.hasIssues else { throw reader.error() }
        return zoning
    }

    /// Checks the zoning against the dataset's anchor ids: every zone has a polygon of 3 or more
    /// finite points and an anchor, every anchor is in exactly one zone, adjacency names zones.
    func validate(anchors: [Int], source: String) throws(ImportError) {
        func fail(_ reason: String) -> ImportError { ImportError(file: source, reason: reason) }
        guard !zones.isEmpty else { throw fail("zoning \"\(name)\" has no zone") }
        var zoneOf: [Int: Int] = [:]
        for (i, zone) in zones.enumerated() {
            guard zone.polygon.count >= 3, zone.polygon.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isFinite) }) else {
                throw fail("zone \(i + 1) \"\(zone.name)\": a polygon is 3 or more [x, y] points")
            }
            guard !zone.anchors.isEmpty else {
                throw fail("zone \(i + 1) \"\(zone.name)\" has no anchor: nobody could ever be located there")
            }
            for anchor in zone.anchors {
                guard anchors.contains(anchor) else { throw fail("zone \(i + 1) \"\(zone.name)\": the dataset has no anchor \(anchor) (it has \(anchors.map(String.init).joined(separator: ", ")))") }
                if let other = zoneOf[anchor] { throw fail("anchor \(anchor) is in zone \(other + 1) and zone \(i + 1): a receiver is installed in one section") }
                zoneOf[anchor] = i
            }
            for other in zone.adjacent ?? [] where !(1...zones.count).contains(other) || other == i + 1 {
                throw fail("zone \(i + 1) \"\(zone.name)\": adjacent \(other) is not another zone's minor (1…\(zones.count))")
            }
        }
        if let missing = anchors.first(where: { zoneOf[$0] == nil }) {
            throw fail("anchor \(missing) is in no zone: every receiver is installed in one section")
        }
    }
}
