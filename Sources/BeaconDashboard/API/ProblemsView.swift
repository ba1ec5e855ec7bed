/// `GET /api/health/problems`: what is wrong across the chain, problems first, then warnings, a
/// page at a time — the health page's list for the engineer on call. Each item names what is
/// wrong (`kind` and `subject`), the stores it touches and, in words, what it means.
struct ProblemsView: Codable, Sendable, Equatable {
    /// One thing wrong.
    struct Item: Codable, Sendable, Equatable {
        /// `problem` (something is not decided or not heard) or `warning` (degraded).
        var severity: String
        /// `broker`, `aggregator`, `stores`, `store`, `gateway` or `dashboard`.
        var kind: String
        /// What it is about: an aggregator's id, a store's number and name, a count of stores.
        var subject: String
        /// The stores it touches (`101,103-110`), where it touches some.
        var stores: String?
        var detail: String
    }

    /// The dashboard's clock (Unix ms).
    var now: Int64
    /// The stores the viewer may see, counted by health.
    var summary: ChainView.Summary
    var aggregators: Int
    var aggregatorsOnline: Int
    var gateways: Int
    var gatewaysOffline: Int
    var gatewaysUnknown: Int
    /// Items of each severity, over every page.
    var problems: Int
    var warnings: Int
    var page: Int
    var perPage: Int
    var pages: Int
    var items: [Item]
    var broker: HealthView.Broker
    var viewer: StoresView.ViewerView
}
