/// One sample of a calibration walk: when, the section the truth puts the device in, and what
/// each gateway of that section's store made of the device then.
public struct WalkSample: Sendable, Equatable {
    /// Event time, Unix ms.
    public var time: Int64
    /// The true section, an index into the chain's ``BeaconEngine/Chain/sections``.
    public var section: Int
    /// Per gateway of the store, in the store's local order: its link's filtered level when
    /// fresh, nil when not.
    public var levels: [Double?]

    /// A sample.
    public init(time: Int64, section: Int, levels: [Double?]) {
        self.time = time
        self.section = section
        self.levels = levels
    }
}
