public import BeaconCore

extension Chain {
    /// The stores the `position` rule cannot place devices in — a section without a polygon or a
    /// gateway without a position — which it leaves to the `hysteresis` rule; what `check-config`
    /// notes.
    public var storesWithoutGeometry: [StoreNumber] {
        stores.indices.filter { !PositionModel.hasGeometry(self, store: $0) }.map { stores[$0].major }
    }
}
