import BeaconCore

extension HealthView {
    /// A lag beyond which an aggregator is said to fall behind its sightings (ms): its decisions
    /// come that much later than the sightings behind them.
    static let lagWarning: Int64 = 10_000

    /// What is wrong, problems first, then warnings; within each, the broker link, the
    /// aggregators, the stores no aggregator serves (one item for all of them, as ranges), each
    /// store's gateways, and the dashboard's own. `stores` are the judged stores this view covers.
    func problems(stores: [ChainSnapshot.JudgedStore]) -> [ProblemsView.Item] {
        var items: [ProblemsView.Item] = []
        func add(_ level: StoreHealth.Level, _ kind: String, _ subject: String, stores: String? = nil, _ detail: String) {
            items.append(ProblemsView.Item(severity: level.name, kind: kind, subject: subject, stores: stores, detail: detail))
        }
        if broker.state != "connected" {
            add(.problem, "broker", "the dashboard's broker link", "\(broker.state)\(broker.detail.map { ": \($0)" } ?? ""): what is shown is the last state received")
        }
        for aggregator in aggregators {
            let standbys = aggregators.filter { $0.standbyFor == aggregator.id && $0.state == "online" }.map(\.id)
            switch aggregator.state {
            case "offline", "stale":
                let why = aggregator.state == "offline"
                    ? "offline (its Last Will or a shutdown)"
                    : "says online, but its last status is \(aggregator.statusAgeMs / 1000) s old: hung, or unable to publish"
                if standbys.isEmpty {
                    add(.problem, "aggregator", aggregator.id, stores: aggregator.stores ?? "all", "\(why); no standby serves its stores")
                } else {
                    add(.warning, "aggregator", aggregator.id, stores: aggregator.stores ?? "all", "\(why); its standby \(standbys.joined(separator: ", ")) serves its stores")
                }
            case "online" where aggregator.standbyFor != nil:
                add(.warning, "aggregator", aggregator.id, stores: aggregator.stores ?? "all", "a standby serving in place of \(aggregator.standbyFor ?? "")")
            default:
                break
            }
            if aggregator.state == "online", let lag = aggregator.lagMs, lag > Self.lagWarning {
                add(.warning, "aggregator", aggregator.id, stores: aggregator.stores ?? "all", "decides \(lag / 1000) s behind its sightings")
            }
            if let dropped = aggregator.droppedPublishes, dropped > 0 {
                add(.warning, "aggregator", aggregator.id, stores: aggregator.stores ?? "all", "\(dropped) publish(es) dropped: its broker could not take them")
            }
            if aggregator.lostBatches > 0 {
                add(.warning, "aggregator", aggregator.id, stores: aggregator.stores ?? "all", "\(aggregator.lostBatches) batch(es) lost from its gateways since it started")
            }
        }
        let unserved = stores.filter(\.health.unserved).map(\.line.major)
        if !unserved.isEmpty {
            add(.problem, "stores", unserved.count == 1 ? "1 store" : "\(unserved.count) stores", stores: StoreScope(stores: unserved).description,
                "no aggregator online serves them: no enter or exit is decided there, and their counts are the last known")
        }
        for store in stores where !store.health.offline.isEmpty {
            let (line, health) = (store.line, store.health)
            let level: StoreHealth.Level = health.offline.count == health.gateways ? .problem : .warning
            let named = health.offline.prefix(5).joined(separator: ", ") + (health.offline.count > 5 ? " and \(health.offline.count - 5) more" : "")
            add(level, "store", "\(line.major) \(line.name)", stores: "\(line.major)",
                "\(health.offline.count) of \(health.gateways) gateways offline: \(named)")
        }
        for gateway in gateways where gateway.major == nil && gateway.state == "offline" {
            add(.warning, "gateway", gateway.id, "offline, and in no store's layout: \(gateway.detail)")
        }
        if undecodable > 0 {
            add(.warning, "dashboard", "unreadable messages", "\(undecodable) message(s) could not be read\(lastProblem.map { "; the last: \($0)" } ?? "")")
        }
        if gatewayStatusesDropped + aggregatorStatusesDropped > 0 {
            add(.warning, "dashboard", "statuses not kept",
                "\(gatewayStatusesDropped) gateway and \(aggregatorStatusesDropped) aggregator status(es) not kept: more than the dashboard holds")
        }
        if devicesNotKept > 0 {
            add(.warning, "dashboard", "device states not kept", "\(devicesNotKept) device state(s) not kept for look-ups: more devices than the dashboard holds")
        }
        // Problems first; the order above within each severity.
        return items.filter { $0.severity == "problem" } + items.filter { $0.severity != "problem" }
    }

}
