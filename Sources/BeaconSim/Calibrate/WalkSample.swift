/// One sample of a calibration walk: when, where the truth puts the device — in a section, or
/// outside every store while a store's gateways still hear it — and what each gateway of that
/// store made of the device then.
public struct WalkSample: Sendable, Equatable {
    /// Where the truth puts the device, as the sample teaches it.
    public enum Place: Sendable, Hashable {
        /// In this section, an index into the chain's ``BeaconEngine/Chain/sections``.
        case section(Int)
        /// Outside every store, heard by this store (an index into ``BeaconEngine/Chain/stores``).
        case outside(store: Int)
    }

    /// Event time, Unix ms.
    public var time: Int64
    /// Where the device was.
    public var place: Place
    /// Per gateway of the store, in the store's local order: its link's filtered level when
    /// fresh, nil when not.
    public var levels: [Double?]
    /// The measured power the device's adverts last carried, dBm at 1 m; nil when they carried
    /// none (and for samples outside, which teach no level).
    public var power: Double?

    /// A sample in `section` (an index into the chain's sections).
    public init(time: Int64, section: Int, levels: [Double?], power: Double? = nil) {
        self.init(time: time, place: .section(section), levels: levels, power: power)
    }

    /// A sample.
    public init(time: Int64, place: Place, levels: [Double?], power: Double? = nil) {
        self.time = time
        self.place = place
        self.levels = levels
        self.power = power
    }

    /// The true section; nil for a sample outside.
    public var section: Int? {
        if case .section(let section) = place { return section }
        return nil
    }
}
