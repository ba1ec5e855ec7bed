/// The health rows the pages were last sent, and what changed since: the one writer of what the
/// health stream has told the pages.
struct HealthFeed {
    /// What to send.
    enum Update: Sendable, Equatable {
        /// These changes (with the rows that went, to be filtered per viewer).
        case changes(Delta)
        /// Too much changed to send as rows (a burst of retained statuses): the pages fetch
        /// `/api/health` again.
        case reload
    }

    /// The changes before they are filtered for a viewer: removed rows are kept whole, so that
    /// whether a viewer may see them can still be told.
    struct Delta: Sendable, Equatable {
        var now: Int64
        var summary: HealthChanges.Summary
        var aggregators: [HealthView.Aggregator] = []
        var gateways: [HealthView.Gateway] = []
        var removedAggregators: [HealthView.Aggregator] = []
        var removedGateways: [HealthView.Gateway] = []

        /// The event for `scope`: only the rows it may see, and the summary.
        func visible(to scope: StoreScope) -> HealthChanges {
            var summary = self.summary
            if scope != .chain { summary.lastProblem = nil }
            return HealthChanges(
                now: now, summary: summary,
                aggregators: aggregators.filter { $0.isVisible(to: scope) }, gateways: gateways.filter { $0.isVisible(to: scope) },
                removedAggregators: removedAggregators.filter { $0.isVisible(to: scope) }.map(\.id),
                removedGateways: removedGateways.filter { $0.isVisible(to: scope) }.map(\.id))
        }
    }

    /// Rows beyond which the pages are told to reload instead.
    let reloadBeyond: Int
    private var aggregators: [String: HealthView.Aggregator] = [:]
    private var gateways: [String: HealthView.Gateway] = [:]
    private var summary: HealthChanges.Summary?

    /// A feed that says "reload" past `reloadBeyond` changed rows.
    init(reloadBeyond: Int = 500) {
        self.reloadBeyond = reloadBeyond
    }

    /// What changed between the last view sent and `view` (which is then the last sent); nil
    /// when nothing did. An aggregator's status age alone is no change: it grows every second,
    /// and the page works it out from `now`.
    mutating func update(to view: HealthView) -> Update? {
        var delta = Delta(now: view.now, summary: HealthChanges.Summary(view))
        let (changedAggregators, goneAggregators) = Self.diff(&aggregators, view.aggregators, id: \.id) { $0.statusAgeMs = 0 }
        let (changedGateways, goneGateways) = Self.diff(&gateways, view.gateways, id: \.id) { _ in }
        delta.aggregators = changedAggregators
        delta.gateways = changedGateways
        delta.removedAggregators = goneAggregators
        delta.removedGateways = goneGateways
        let rows = changedAggregators.count + changedGateways.count + goneAggregators.count + goneGateways.count
        guard rows > 0 || summary != delta.summary else { return nil }
        summary = delta.summary
        return rows > reloadBeyond ? .reload : .changes(delta)
    }

    /// The rows of `now` that are new or differ from `last` (compared after `normalised`), and
    /// the rows of `last` that are gone; `last` becomes `now`.
    private static func diff<Row: Equatable>(
        _ last: inout [String: Row], _ now: [Row], id: KeyPath<Row, String>, normalised: (inout Row) -> Void
    ) -> (changed: [Row], gone: [Row]) {
        var next: [String: Row] = [:]
        var changed: [Row] = []
        for row in now {
            var compared = row
            normalised(&compared)
            next[row[keyPath: id]] = compared
            if last[row[keyPath: id]] != compared { changed.append(row) }
        }
        let gone = last.filter { next[$0.key] == nil }.map(\.value)
        last = next
        return (changed, gone)
    }
}
