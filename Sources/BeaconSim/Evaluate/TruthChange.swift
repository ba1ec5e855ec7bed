public import BeaconCore

/// A change in where a device truly is: the ground truth the evaluator scores against.
public struct TruthChange: Sendable, Equatable {
    /// Event time, Unix ms.
    public var time: Int64
    /// The device.
    public var device: DeviceID
    /// Store (major), nil when outside every store.
    public var store: StoreNumber?
    /// Section (minor), nil when outside.
    public var section: SectionNumber?

    public init(time: Int64, device: DeviceID, store: StoreNumber?, section: SectionNumber?) {
        self.time = time
        self.device = device
        self.store = store
        self.section = section
    }
}
