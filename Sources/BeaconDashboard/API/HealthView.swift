/// `/api/health` and the page's health panel: the dashboard's broker link, every aggregator
/// (online, lag, loss) and every gateway (online, loss), and what the dashboard itself could not
/// read.
struct HealthView: Codable, Sendable, Equatable {
    /// The dashboard's own connection to the broker.
    struct Broker: Codable, Sendable, Equatable {
        /// `connecting`, `connected`, `lost` or `refused`.
        var state: String
        var since: Int64
        var detail: String?
    }

    /// An aggregator, from its retained status.
    struct Aggregator: Codable, Sendable, Equatable {
        var id: String
        /// `online`, `offline`, `stale` (says online, but its status is older than the
        /// dashboard's stale limit: hung, or unable to publish), or `standby` (online, deciding
        /// nothing: a standby while its primary serves, or a primary waiting for its stores back).
        var state: String
        var stores: String?
        /// On a standby, the primary it stands in for.
        var standbyFor: String?
        /// When it published the status (its clock, Unix ms), and how old that is by the dashboard's.
        var statusTime: Int64
        var statusAgeMs: Int64
        var lagMs: Int64?
        /// Batches lost over all its gateways.
        var lostBatches: UInt64
        var offlineGateways: UInt64
        var devices: UInt64?
        var sightings: UInt64?
        var rejects: UInt64
        var droppedPublishes: UInt64?
    }

    /// A gateway: of a store's layout, or one that published a status.
    struct Gateway: Codable, Sendable, Equatable {
        var id: String
        var major: UInt16?
        var minor: UInt16?
        /// `online`, `offline` (its Last Will, or an aggregator hears nothing from it) or
        /// `unknown` (no status, and no aggregator of its store online).
        var state: String
        /// Why, in words: whose view the state is.
        var detail: String
        /// Batches lost between it and the aggregators.
        var lostBatches: UInt64
        /// Its own status: when published (its clock, Unix ms), sightings dropped, batches buffered.
        var statusTime: Int64?
        var dropped: UInt64?
        var buffered: UInt64?
        /// When an aggregator that counts it offline last had a batch from it (0: none since it started).
        var lastBatch: UInt64?
    }

    /// The dashboard's own HTTP listener: connections open and the cap on them, and how often
    /// the cap was reached (new connections then wait until one closes).
    /// And its event streams: open, the cap, and those refused at the cap.
    struct Server: Codable, Sendable, Equatable {
        var openConnections: Int
        var maxConnections: Int
        var connectionCapReached: UInt64
        var eventStreams: Int
        var maxEventStreams: Int
        var eventStreamsRefused: UInt64
    }

    /// The dashboard's clock when the view was made (Unix ms).
    var now: Int64
    var broker: Broker
    var aggregators: [Aggregator]
    var gateways: [Gateway]
    /// Messages read, and those that could not be (their last problem described).
    var messages: UInt64
    var undecodable: UInt64
    var lastProblem: String?
    /// Device states held for look-ups, and those not kept (the dashboard's limit).
    var devices: Int
    var devicesNotKept: UInt64
    /// Statuses not kept because the dashboard's limit of gateways or aggregators was reached.
    var gatewayStatusesDropped: UInt64
    var aggregatorStatusesDropped: UInt64
    var server: Server

    /// The part of the view `scope` may see: the aggregators that own one of its stores, the
    /// gateways placed in one of them, and the last problem only for the whole chain (its topic
    /// may name another store).
    func visible(to scope: StoreScope) -> HealthView {
        guard scope != .chain else { return self }
        var view = self
        view.aggregators = aggregators.filter { $0.isVisible(to: scope) }
        view.gateways = gateways.filter { $0.isVisible(to: scope) }
        view.lastProblem = nil
        return view
    }
}

extension HealthView.Aggregator {
    /// Whether an aggregator owning `stores` shows to `scope`.
    func isVisible(to scope: StoreScope) -> Bool { StoreScope(aggregatorStores: stores).overlaps(scope) }
}

extension HealthView.Gateway {
    /// Whether the gateway is placed in a store of `scope` (an unplaced one is the chain's).
    func isVisible(to scope: StoreScope) -> Bool { major.map(scope.admits) ?? (scope == .chain) }
}
