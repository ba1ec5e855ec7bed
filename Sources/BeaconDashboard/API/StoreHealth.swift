import BeaconCore

/// A store's health as the overview and the health page show it, judged from the rows of the
/// health view: whether an online aggregator serves the store, and how many of its gateways are
/// offline.
struct StoreHealth: Sendable {
    /// How bad, in the order a person on call reads them.
    enum Level: Int, Sendable, Comparable {
        case ok, warning, problem

        var name: String {
            switch self {
            case .ok: "ok"
            case .warning: "warning"
            case .problem: "problem"
            }
        }

        static func < (a: Level, b: Level) -> Bool { a.rawValue < b.rawValue }
    }

    /// The worst of what is wrong.
    var level = Level.ok
    /// What is wrong, worst first.
    var problems: [String] { found.sorted { $0.level > $1.level }.map(\.text) }
    private var found: [(level: Level, text: String)] = []
    var gateways = 0
    var offline: [String] = []
    var unknown = 0
    /// The online aggregators deciding the store.
    var serving: [String] = []
    /// Whether no online aggregator serves the store.
    var unserved = false

    mutating func add(_ level: Level, _ problem: String) {
        if level > self.level { self.level = level }
        found.append((level, problem))
    }
}

/// Judges stores from one health view: the view's gateways grouped by store once, so that a
/// chain of thousands of stores is judged in one pass.
struct StoreHealthJudge {
    private let gatewaysByStore: [StoreNumber: [HealthView.Gateway]]
    private let aggregators: [(view: HealthView.Aggregator, scope: StoreScope)]

    /// A judge over `health` (already limited to what the viewer may see).
    init(_ health: HealthView) {
        var byStore: [StoreNumber: [HealthView.Gateway]] = [:]
        for gateway in health.gateways {
            if let major = gateway.major { byStore[major, default: []].append(gateway) }
        }
        gatewaysByStore = byStore
        aggregators = health.aggregators.map { ($0, StoreScope(aggregatorStores: $0.stores)) }
    }

    /// The health of `store`.
    func judge(_ store: StoreNumber) -> StoreHealth {
        var health = StoreHealth()
        let covering = aggregators.filter { $0.scope.admits(store) }.map(\.view)
        let serving = covering.filter { $0.state == "online" }
        health.serving = serving.map(\.id)
        if serving.isEmpty {
            health.unserved = true
            let others = covering.map { "\($0.id) \($0.state)" }.joined(separator: ", ")
            health.add(.problem, covering.isEmpty
                ? "no aggregator serves it: none of those heard owns it"
                : "no aggregator online serves it (\(others)): nothing is decided there")
        }
        for standby in serving where standby.standbyFor != nil {
            health.add(.warning, "served by the standby \(standby.id) in place of \(standby.standbyFor ?? "")")
        }
        let gateways = gatewaysByStore[store] ?? []
        health.gateways = gateways.count
        health.offline = gateways.filter { $0.state == "offline" }.map(\.id)
        health.unknown = gateways.filter { $0.state == "unknown" }.count
        if !gateways.isEmpty && health.offline.count == gateways.count {
            health.add(.problem, "every gateway offline (\(gateways.count))")
        } else if !health.offline.isEmpty {
            let named = health.offline.prefix(3).joined(separator: ", ") + (health.offline.count > 3 ? " and \(health.offline.count - 3) more" : "")
            health.add(.warning, "\(health.offline.count) of \(gateways.count) gateways offline: \(named)")
        }
        return health
    }
}
