import BeaconEngine

/// A point a person walks to, and, where it is stairs, the floor they are on once there.
struct Waypoint: Sendable, Equatable {
    var point: Chain.Point
    /// The storey reached at ``point``; nil: the one the person is on.
    var storey: Int?

    init(_ point: Chain.Point, storey: Int? = nil) {
        self.point = point
        self.storey = storey
    }
}
