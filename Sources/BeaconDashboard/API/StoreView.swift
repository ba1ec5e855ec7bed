/// One store as `/api/stores` and `/api/stores/<major>` show it: its plan (from the retained
/// layout), its occupancy now, and — for one store — its newest events. JSON keys are snake_case.
struct StoreView: Codable, Sendable, Equatable {
    /// A section of the plan with its count.
    struct Section: Codable, Sendable, Equatable {
        var minor: UInt16
        var name: String
        /// `[[x, y], …]` metres, street at the bottom (lowest y); absent when not configured.
        var polygon: [[Double]]?
        var adjacent: [UInt16]?
        var streetDoor: Bool
        /// The storey it is on, as the chain config numbers it; absent when 0 (the layout's `floor`).
        var floor: Int?
        /// Devices inside now; absent until the aggregator has published a count.
        var count: Int?
        /// When the count was taken (event time, Unix ms).
        var countTime: Int64?
    }

    /// A gateway of the plan.
    struct Gateway: Codable, Sendable, Equatable {
        var id: String
        var minor: UInt16
        /// `[x, y]` metres; absent when not configured.
        var position: [Double]?
    }

    var major: UInt16
    var name: String
    /// Whether an aggregator has published this store's layout (else only counts are known, and
    /// the page says so instead of drawing a plan).
    var hasLayout: Bool
    /// When the layout was published (Unix ms).
    var layoutTime: Int64?
    /// Devices inside the store now.
    var count: Int?
    var countTime: Int64?
    var sections: [Section]
    var gateways: [Gateway]
    /// The store's newest region events, newest first (`/api/stores/<major>` only).
    var events: [EventView]?
}
