/// `GET /api/chain`: the chain overview, one page of stores with their occupancy and health, and
/// the counts over every store the viewer may see, so that a chain of thousands of stores is
/// looked at a page at a time. JSON keys are snake_case.
struct ChainView: Codable, Sendable, Equatable {
    /// A store's line in the overview.
    struct Store: Codable, Sendable, Equatable {
        var major: UInt16
        var name: String
        var hasLayout: Bool
        /// Devices inside now, and when counted (event time, Unix ms); absent before a count.
        var count: Int?
        var countTime: Int64?
        var sections: Int
        var gateways: Int
        var gatewaysOffline: Int
        /// No status of their own and no aggregator online to vouch for them.
        var gatewaysUnknown: Int
        /// The online aggregators that serve it (a standby serving in its primary's place among them).
        var aggregators: [String]
        /// `ok`, `warning` or `problem`.
        var health: String
        /// What is wrong, in words, worst first; empty when `ok`.
        var problems: [String]
    }

    /// Every store the viewer may see, counted by health, with the devices inside them.
    struct Summary: Codable, Sendable, Equatable {
        var stores: Int
        var ok: Int
        var warning: Int
        var problem: Int
        var inside: Int
    }

    var summary: Summary
    /// The stores the search matched, and the pages they make.
    var matched: Int
    var page: Int
    var perPage: Int
    var pages: Int
    var sort: String
    var reversed: Bool
    var query: String?
    var stores: [Store]
    var broker: HealthView.Broker
    var viewer: StoresView.ViewerView
}
