import BeaconCore
import Foundation

/// The whole chain's health view and every store judged from it, made under the store's lock in
/// one pass, then read by the overview and the health list outside it: at chain scale the pass
/// costs tens of milliseconds (every gateway and store), so the pages share one for a moment
/// rather than each holding the lock that long (``DashboardStore``).
struct ChainSnapshot: Sendable {
    /// A store as the overview shows it, with the verdict behind its line.
    struct JudgedStore: Sendable {
        var line: ChainView.Store
        var health: StoreHealth
    }

    /// The whole chain's health view.
    let health: HealthView
    /// Every known store, by number.
    let stores: [JudgedStore]
    /// When it was made, by a monotonic clock.
    let made: ContinuousClock.Instant

    /// The stores `scope` may see.
    func stores(visibleTo scope: StoreScope) -> [JudgedStore] {
        scope == .chain ? stores : stores.filter { scope.admits($0.line.major) }
    }

    /// The page of the overview `query` asks for, among the stores `viewer` may see.
    func chainView(_ query: ChainQuery, viewer: Viewer) -> ChainView {
        let judged = stores(visibleTo: viewer.scope)
        let matches = query.matcher()
        var matched = judged.filter { matches($0.line.major, $0.line.name) }
        switch query.sort {
        case .major:
            break
        case .name:
            matched.sort {
                let order = $0.line.name.compare($1.line.name, options: [.caseInsensitive, .diacriticInsensitive, .numeric])
                return order == .orderedSame ? $0.line.major < $1.line.major : order == .orderedAscending
            }
        case .occupancy:
            matched.sort { ($0.line.count ?? -1, $1.line.major) > ($1.line.count ?? -1, $0.line.major) }
        case .health:
            matched.sort {
                ($0.health.level.rawValue, $0.health.offline.count, $1.line.major) > ($1.health.level.rawValue, $1.health.offline.count, $0.line.major)
            }
        }
        if query.reversed { matched.reverse() }
        let shown = Self.page(matched, query.page, query.perPage)
        return ChainView(
            summary: Self.summary(judged), matched: matched.count, page: query.page, perPage: query.perPage, pages: shown.pages,
            sort: query.sort.rawValue, reversed: query.reversed, query: query.search, stores: shown.items.map(\.line),
            broker: health.broker, viewer: viewer.view)
    }

    /// Page `page` (of `perPage` items) of what is wrong among the stores `viewer` may see.
    func problemsView(page: Int, perPage: Int, viewer: Viewer, now: Int64) -> ProblemsView {
        let visible = health.visible(to: viewer.scope)
        let judged = stores(visibleTo: viewer.scope)
        let items = visible.problems(stores: judged)
        let shown = Self.page(items, page, perPage)
        return ProblemsView(
            now: now, summary: Self.summary(judged), aggregators: visible.aggregators.count,
            aggregatorsOnline: visible.aggregators.count { $0.state == "online" }, gateways: visible.gateways.count,
            gatewaysOffline: visible.gateways.count { $0.state == "offline" }, gatewaysUnknown: visible.gateways.count { $0.state == "unknown" },
            problems: items.count { $0.severity == "problem" }, warnings: items.count { $0.severity == "warning" },
            page: page, perPage: perPage, pages: shown.pages, items: shown.items, broker: visible.broker, viewer: viewer.view)
    }

    /// Page `page` of `items`, `perPage` a page (none past the last), and the pages they make (at least 1).
    private static func page<Item>(_ items: [Item], _ page: Int, _ perPage: Int) -> (items: [Item], pages: Int) {
        let start = min((page - 1) * perPage, items.count)
        return (Array(items[start..<min(start + perPage, items.count)]), max(1, (items.count + perPage - 1) / perPage))
    }

    /// The counts over `judged`.
    static func summary(_ judged: [JudgedStore]) -> ChainView.Summary {
        ChainView.Summary(
            stores: judged.count, ok: judged.count { $0.health.level == .ok }, warning: judged.count { $0.health.level == .warning },
            problem: judged.count { $0.health.level == .problem }, inside: judged.reduce(0) { $0 + ($1.line.count ?? 0) })
    }
}
