public import BeaconCore
public import Foundation

/// What a report is asked about: a set of stores (or the chain), a time window, the time zone its
/// hours and days are counted in, and the step of its occupancy series.
public struct ReportQuery: Sendable, Equatable {
    /// The stores; empty for the whole chain.
    public var stores: Set<StoreNumber>
    /// The window, Unix ms: visits that began in it are counted.
    public var range: Range<Int64>
    /// Where hours and days begin.
    public var timeZone: TimeZone
    /// The occupancy series' step, ms.
    public var occupancyStep: Int64
    /// How long before the window a visit may have begun and still be inside during it (for
    /// occupancy): visits open longer are closed as stale by the recorder.
    public var lookBack: Int64

    /// A query; see each property.
    public init(
        stores: Set<StoreNumber>, range: Range<Int64>, timeZone: TimeZone, occupancyStep: Int64 = 15 * 60_000,
        lookBack: Int64 = 12 * 3_600_000
    ) {
        self.stores = stores
        self.range = range
        self.timeZone = timeZone
        self.occupancyStep = occupancyStep
        self.lookBack = lookBack
    }
}
