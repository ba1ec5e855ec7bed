import Foundation
import BeaconEngine

extension FloorPlan {
    /// A point on the street in front of the store: `along` metres beside its first street door
    /// (negative: to one side, positive: the other) and `out` metres out from the front wall; nil
    /// when that point lies inside the store (a front that is not straight).
    func frontPoint(along: Double, out: Double) -> Chain.Point? {
        let door = streetDoors[0]
        // The door is 1 m outside its `inside` point and 3 m inside its `outside` point.
        let outward = Chain.Point(x: (door.outside.x - door.inside.x) / 4, y: (door.outside.y - door.inside.y) / 4)
        let sill = Chain.Point(x: door.inside.x + outward.x, y: door.inside.y + outward.y)
        let p = Chain.Point(x: sill.x - outward.y * along + outward.x * out, y: sill.y + outward.x * along + outward.y * out)
        return section(at: p, storey: storeys[door.section]) == nil ? p : nil
    }

    /// The heading of someone outside facing the store front, radians.
    var facingFront: Double {
        let door = streetDoors[0]
        return atan2(door.inside.y - door.outside.y, door.inside.x - door.outside.x)
    }
}
