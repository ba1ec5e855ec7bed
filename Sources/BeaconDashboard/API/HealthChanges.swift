/// A `health` event of the stream: what changed in the health panel since the last one — the
/// rows that are new or different, the ids of the rows that went, and the panel's summary — so
/// that a page keeps its table without being sent it again. Keys snake_case, as `/api/health`.
struct HealthChanges: Codable, Sendable, Equatable {
    /// The panel's figures besides its rows (as in `/api/health`).
    struct Summary: Codable, Sendable, Equatable {
        var broker: HealthView.Broker
        var messages: UInt64
        var undecodable: UInt64
        var lastProblem: String?
        var devices: Int
        var devicesNotKept: UInt64
        var gatewayStatusesDropped: UInt64
        var aggregatorStatusesDropped: UInt64
        var server: HealthView.Server

        /// The summary of `view`.
        init(_ view: HealthView) {
            broker = view.broker
            messages = view.messages
            undecodable = view.undecodable
            lastProblem = view.lastProblem
            devices = view.devices
            devicesNotKept = view.devicesNotKept
            gatewayStatusesDropped = view.gatewayStatusesDropped
            aggregatorStatusesDropped = view.aggregatorStatusesDropped
            server = view.server
        }
    }

    /// The dashboard's clock (Unix ms): a row's age is `now - status_time`.
    var now: Int64
    var summary: Summary
    var aggregators: [HealthView.Aggregator]
    var gateways: [HealthView.Gateway]
    var removedAggregators: [String]
    var removedGateways: [String]
}
