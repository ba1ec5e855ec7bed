import BeaconCore
import BeaconWire

extension LiveState {
    /// Every gateway of the layouts, and any other that published a status, with the state the
    /// best witness gives: its own Last Will, else an online aggregator of its store (which
    /// counts a gateway silent beyond its limit as offline), else its own status.
    func gatewayHealth() -> [HealthView.Gateway] {
        var placed: [GatewayID: SectionRef] = [:]
        for layout in layouts.values {
            for gateway in layout.gateways { placed[gateway.id] = SectionRef(store: layout.store, section: gateway.section) }
        }
        // A standby standing by (or a primary waiting for its stores) decides nothing: no witness.
        let online = aggregators.values.map(\.value).filter { $0.state == .online && $0.serving != false }
        var lost: [GatewayID: UInt64] = [:]
        var silentSince: [GatewayID: UInt64] = [:]
        for status in online {
            for (gateway, count) in status.counters.loss { lost[gateway, default: 0] += count }
            for (gateway, last) in status.counters.offline { silentSince[gateway] = last }
        }
        // Read once, not once a gateway: a chain has tens of thousands of gateways.
        let watching = online.map { (scope: StoreScope(aggregatorStores: $0.stores), all: $0.stores == nil) }
        let ids = Set(placed.keys).union(gateways.keys).sorted()
        return ids.map { id in
            let own = gateways[id]?.value
            let place = placed[id] ?? own.flatMap { $0.section }
            let watched = watching.contains { watcher in place.map { watcher.scope.admits($0.store) } ?? watcher.all }
            let (state, detail) = Self.judge(own: own, silentSince: silentSince[id], watched: watched)
            return HealthView.Gateway(
                id: id.rawValue, major: place?.store, minor: place?.section, state: state, detail: detail,
                lostBatches: lost[id] ?? 0, statusTime: own?.time, dropped: own?.counters.dropped,
                buffered: own?.counters.buffered, lastBatch: silentSince[id])
        }
    }

    private static func judge(own: GatewayStatus?, silentSince: UInt64?, watched: Bool) -> (String, String) {
        if own?.state == .offline { return ("offline", "its Last Will: the edge lost its broker connection") }
        if silentSince != nil { return ("offline", "an aggregator has had no batch from it for longer than its silence limit") }
        if watched { return ("online", own == nil ? "its batches reach an online aggregator" : "its status, and an online aggregator hears it") }
        if own?.state == .online { return ("online", "its own status (no aggregator online to confirm)") }
        return ("unknown", "no status of its own and no aggregator online")
    }
}
