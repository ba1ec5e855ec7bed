import Foundation
import BeaconEngine

/// The path of a calibration walk through one store: from the pavement in through the street
/// door; every section in turn, walking all over each for a while; out of the door, along the
/// shop front for a while, and back in; every section again in the other order; out and back in
/// once more; then out and away. The tag walks straight from each point to the next at the walk's
/// speed, so the route's length gives its time.
struct CalibrationRoute {
    /// The points, in order, starting where the tag sets off.
    private(set) var points: [Waypoint] = []
    /// The local section the route has reached, nil while outside.
    private var here: Int?
    private let plan: FloorPlan
    private let walk: CalibrationWalk
    private var random: SeededRandom
    /// The street door: its local section, the doorway, and the unit vectors out of it and along
    /// the shop front.
    private let door: Int
    private let doorway: Chain.Point, out: Chain.Point, along: Chain.Point

    /// The route of `walk` through the store of `plan`, its random choices from `random`.
    init(plan: FloorPlan, walk: CalibrationWalk, random: SeededRandom) {
        self.plan = plan
        self.walk = walk
        self.random = random
        let street = plan.streetDoors[0]
        door = street.section
        // FloorPlan puts `inside` 1 m in from the doorway and `outside` 3 m out.
        let dx = street.outside.x - street.inside.x, dy = street.outside.y - street.inside.y
        let length = max((dx * dx + dy * dy).squareRoot(), 1e-6)
        out = Chain.Point(x: dx / length, y: dy / length)
        along = Chain.Point(x: -out.y, y: out.x)
        doorway = Chain.Point(x: street.inside.x + out.x, y: street.inside.y + out.y)
        points = [Waypoint(at(out: 12, along: 6))]
        let order = Self.order(plan, from: door)
        comeIn()
        for section in order { visit(section) }
        goOutAndBack()
        for section in order.reversed() { visit(section) }
        goOutAndBack()
        // Back in: a little while in the door's section, then out and away.
        cover(door, seconds: walk.sectionSeconds / 3)
        points += [street.inside, street.outside, at(out: 30, along: 0)].map { Waypoint($0) }
    }

    /// How long the route takes, seconds.
    var seconds: Double { Self.length(points.map(\.point)) / walk.speed }

    /// Every local section once, depth first from `start` through adjacent sections, the ones
    /// adjacency does not reach last: on a grid, a snake.
    static func order(_ plan: FloorPlan, from start: Int) -> [Int] {
        var seen = Set<Int>(), order: [Int] = []
        func visit(_ section: Int) {
            guard seen.insert(section).inserted else { return }
            order.append(section)
            for next in plan.neighbours[section] { visit(next) }
        }
        visit(start)
        for section in plan.sections.indices { visit(section) }
        return order
    }

    /// The length of a polyline, metres.
    static func length(_ points: [Chain.Point]) -> Double {
        zip(points, points.dropFirst()).reduce(0) { $0 + distance($1.0, $1.1) }
    }

    static func distance(_ a: Chain.Point, _ b: Chain.Point) -> Double {
        ((a.x - b.x) * (a.x - b.x) + (a.y - b.y) * (a.y - b.y)).squareRoot()
    }

    /// The point `out` metres out of the doorway and `along` metres along the shop front.
    private func at(out distance: Double, along offset: Double) -> Chain.Point {
        Chain.Point(x: doorway.x + out.x * distance + along.x * offset, y: doorway.y + out.y * distance + along.y * offset)
    }

    /// In through the street door.
    private mutating func comeIn() {
        let street = plan.streetDoors[0]
        points += [Waypoint(street.outside), Waypoint(street.inside)]
        here = door
    }

    /// Through the doors between sections to `section`, then all over it.
    private mutating func visit(_ section: Int) {
        go(to: section)
        cover(section, seconds: walk.sectionSeconds)
    }

    /// Through the doors between sections from where the route is to `section`.
    private mutating func go(to section: Int) {
        let path = plan.path(from: here ?? door, to: section)
        for (a, b) in zip(path, path.dropFirst()) {
            if let between = plan.doors[a][b] { points.append(plan.step(from: a, to: b, through: Person.jitter(between, 0.8, &random))) }
        }
        here = section
    }

    /// Random points all over `section` until the walk between them has taken `seconds`.
    private mutating func cover(_ section: Int, seconds: Double) {
        var elapsed = 0.0
        while elapsed < seconds, let last = points.last?.point {
            let next = plan.randomPoint(in: section, &random)
            // At least half a metre a point: a section too small for random points gives its centre.
            elapsed += max(Self.distance(last, next), 0.5) / walk.speed
            points.append(Waypoint(next))
        }
    }

    /// To the street door, out, along the shop front and the pavement in front of it for the
    /// walk's time outside, and back in.
    private mutating func goOutAndBack() {
        go(to: door)
        let street = plan.streetDoors[0]
        points += [Waypoint(street.inside), Waypoint(street.outside)]
        here = nil
        var elapsed = 0.0
        while elapsed < walk.outsideSeconds, let last = points.last?.point {
            let next = outsidePoint() ?? street.outside
            elapsed += max(Self.distance(last, next), 0.5) / walk.speed
            points.append(Waypoint(next))
        }
        comeIn()
    }

    /// A point 1–4 m out from the shop front, up to 8 m either side of the door, outside every
    /// section; nil when 20 tries found none (a door in a recess).
    private mutating func outsidePoint() -> Chain.Point? {
        for _ in 0..<20 {
            let point = at(out: 1 + random.unit() * 3, along: (random.unit() * 2 - 1) * 8)
            if plan.section(at: point, storey: plan.storeys[door]) == nil { return point }
        }
        return nil
    }
}
