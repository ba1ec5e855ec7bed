public import BeaconCore

/// A change in where a device truly is: the ground truth the evaluator scores against.
public struct TruthChange: Sendable, Equatable {
    /// Event time, Unix ms.
    public var time: Int64
    /// The device.
    public var device: DeviceID
    /// Where it is from ``time`` until its next change.
    public var place: TruthPlace

    /// Store (major), nil when outside every store or unscored.
    public var store: StoreNumber? { place.store }
    /// Section (minor), nil when outside, unscored or not named.
    public var section: SectionNumber? { place.section }

    /// A change to a place.
    public init(time: Int64, device: DeviceID, place: TruthPlace) {
        self.time = time
        self.device = device
        self.place = place
    }

    /// A change into a store and section, or outside every store when `store` is nil.
    public init(time: Int64, device: DeviceID, store: StoreNumber?, section: SectionNumber?) {
        self.init(time: time, device: device, place: store.map { .inside(store: $0, section: section) } ?? .outside)
    }
}
