import Foundation
import BeaconCore
import BeaconEngine

/// A tracked device carried around a store: a shopper's phone, a staff badge, the tag of a
/// calibration walk, or the phone of a passer-by who stops at the window and walks on.
struct Person: Sendable {
    /// What kind of carrier, which shapes the walk: a tag follows the route it was given; a
    /// passer-by stands at the window once, then follows ``onward``, as does a shopper who looks
    /// in the window first (``windowStay``).
    enum Kind: Sendable { case shopper, staff, tag, passerBy }

    /// What the person is doing now.
    enum Activity: Sendable {
        /// Walking through `waypoints` (the first is the next target) at `speed` m/s.
        case walking
        /// Standing still until this time (ms).
        case lingering(until: Int64)
        /// Gone: out of the store and out of radio range.
        case gone
    }

    let device: DeviceID
    let kind: Kind
    /// Store index in the chain.
    let store: Int
    /// Advertising interval, seconds.
    let advertInterval: Double
    /// What the device advertises and how loud it really is.
    let radio: DeviceRadio
    /// Walking speed, m/s.
    let speed: Double
    var position: Chain.Point
    /// The floor the person is on (the chain's `floor`).
    var storey = 0
    /// Direction the body faces, radians (the phone is in front of it).
    var heading = 0.0
    var activity: Activity = .walking
    var waypoints: [Waypoint] = []
    /// Local sections still to visit, in order; the last step is the street door.
    var plan: [Int] = []
    /// The local section the person is walking to or lingering in.
    var target = 0
    /// Where someone standing at the window walks on to — along the street (a passer-by) or in
    /// (a shopper who looked first) — empty once on the way.
    var onward: [Waypoint] = []
    /// How long a shopper who looks first stands at the window, s (drawn apart from their visit);
    /// nil for everyone else.
    var windowStay: Double?
    /// Next advert time, ms.
    var nextAdvert: Int64
    var random: SeededRandom

    /// Moves the person by `dt` seconds along the waypoints, or waits; returns true while present.
    mutating func step(dt: Double, now: Int64, plan floor: FloorPlan, config: SimulationConfig) {
        switch activity {
        case .gone:
            return
        case .lingering(let until):
            if now >= until { nextLeg(floor: floor, now: now, config: config) }
            // Shoppers turn around while browsing.
            if random.unit() < dt * 0.1 { heading = random.unit() * 2 * .pi }
        case .walking:
            var remaining = speed * dt
            while remaining > 0, let next = waypoints.first {
                let dx = next.point.x - position.x, dy = next.point.y - position.y
                let d = (dx * dx + dy * dy).squareRoot()
                if d > 1e-6 { heading = atan2(dy, dx) }
                if d <= remaining {
                    position = next.point
                    if let storey = next.storey { self.storey = storey }
                    waypoints.removeFirst()
                    remaining -= d
                } else {
                    position = Chain.Point(x: position.x + dx / d * remaining, y: position.y + dy / d * remaining)
                    remaining = 0
                }
            }
            if waypoints.isEmpty { arrived(floor: floor, now: now, config: config) }
        }
    }

    /// At the end of a walk: stand at the window (``onward`` still to walk), linger in the
    /// section, or vanish after leaving by the street door.
    mutating func arrived(floor: FloorPlan, now: Int64, config: SimulationConfig) {
        if !onward.isEmpty {
            heading = floor.facingFront
            if let windowStay {
                activity = .lingering(until: now + Int64(windowStay * 1000))
                return
            }
        } else if plan.isEmpty && floor.section(at: position, storey: storey) == nil {
            activity = .gone
            return
        }
        let mean = switch kind {
        case .staff: config.staffLingerSeconds
        case .passerBy: config.windowLingerSeconds
        case .shopper, .tag: config.lingerSeconds
        }
        activity = .lingering(until: now + Int64(Self.lingering(mean: mean, &random) * 1000))
    }

    /// How long someone stops, s: log-normal around `mean` — most short, a few long, as in shops.
    static func lingering(mean: Double, _ random: inout SeededRandom) -> Double {
        max(5, mean * exp(0.6 * random.gaussian() - 0.18))
    }

    /// Plans the walk to the next section of the visit (or out of the store).
    mutating func nextLeg(floor: FloorPlan, now: Int64, config: SimulationConfig) {
        if kind == .passerBy || !onward.isEmpty {
            waypoints = onward
            onward = []
            activity = .walking
            return
        }
        let here = floor.section(at: position, storey: storey) ?? target
        if kind == .staff {
            // Staff never leave: a new random section, forever.
            plan = [floor.neighbours[here].randomElement(using: &random) ?? here]
        }
        guard !plan.isEmpty else { return }
        let next = plan.removeFirst()
        var points: [Waypoint] = []
        let path = floor.path(from: here, to: next)
        for (a, b) in zip(path, path.dropFirst()) {
            if let door = floor.doors[a][b] {
                points.append(floor.step(from: a, to: b, through: Self.jitter(door, 0.8, &random)))
            }
        }
        target = next
        if plan.isEmpty && kind == .shopper {
            // The last leg: to the street door, then out and away.
            let door = floor.streetDoors.first { $0.section == next } ?? floor.streetDoors[0]
            points.append(Waypoint(door.inside))
            points.append(Waypoint(door.outside))
            points.append(Waypoint(Chain.Point(x: door.outside.x, y: door.outside.y - 30)))
        } else if random.unit() < config.boundaryShare,
                  // A boundary on the section's own floor: the stairs are no place to stand.
                  let neighbour = floor.neighbours[next].filter({ floor.storeys[$0] == floor.storeys[next] }).randomElement(using: &random),
                  let edge = floor.doors[next][neighbour] {
            // Some people stop right at a section boundary (the hard case for any rule): less than a
            // metre inside the section they are in.
            let c = FloorPlan.centre(floor.polygons[next])
            let dx = c.x - edge.x, dy = c.y - edge.y
            let d = max((dx * dx + dy * dy).squareRoot(), 1e-6)
            let inset = 0.4 + random.unit() * 0.6
            points.append(Waypoint(Chain.Point(x: edge.x + dx / d * inset, y: edge.y + dy / d * inset)))
        } else {
            points.append(Waypoint(floor.randomPoint(in: next, &random)))
        }
        waypoints = points
        activity = .walking
    }

    static func jitter(_ p: Chain.Point, _ amount: Double, _ random: inout SeededRandom) -> Chain.Point {
        Chain.Point(x: p.x + (random.unit() - 0.5) * amount, y: p.y + (random.unit() - 0.5) * amount)
    }
}
