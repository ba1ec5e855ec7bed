import BeaconCore
import BeaconWire

// The API's views of what is known, made under the store's lock from plain values.
extension LiveState {
    /// Every known store `viewer` may see, in order.
    func storesView(for viewer: Viewer) -> StoresView {
        StoresView(
            stores: knownStores.filter(viewer.scope.admits).map { storeView($0, events: false) }, broker: brokerView,
            viewer: viewer.view)
    }

    /// One store with its newest events, or nil when nothing is known of it.
    func storeView(_ store: StoreNumber) -> StoreView? {
        knownStores.contains(store) ? storeView(store, events: true) : nil
    }

    private func storeView(_ store: StoreNumber, events withEvents: Bool) -> StoreView {
        let layout = layouts[store]
        var sections = (layout?.sections ?? []).map { section in
            let count = sectionCounts[SectionRef(store: store, section: section.minor)]
            return StoreView.Section(
                minor: section.minor, name: section.name, polygon: section.polygon?.map { [$0.x, $0.y] },
                adjacent: section.adjacent, streetDoor: section.streetDoor, floor: section.floor == 0 ? nil : section.floor,
                count: count?.count, countTime: count?.time)
        }
        // Sections counted but not in the layout (or no layout at all): listed, without a plan.
        let laidOut = Set(sections.map(\.minor))
        for (ref, count) in sectionCounts where ref.store == store && !laidOut.contains(ref.section) {
            sections.append(StoreView.Section(
                minor: ref.section, name: count.name ?? "section \(ref.section)", polygon: nil, adjacent: nil,
                streetDoor: false, floor: nil, count: count.count, countTime: count.time))
        }
        if layout == nil { sections.sort { $0.minor < $1.minor } }
        let gateways = (layout?.gateways ?? []).map {
            StoreView.Gateway(id: $0.id.rawValue, minor: $0.section, position: $0.position.map { [$0.x, $0.y] })
        }
        let total = storeCounts[store]
        return StoreView(
            major: store, name: layout?.name ?? total?.name ?? "store \(store)", hasLayout: layout != nil, layoutTime: layout?.time,
            count: total?.count, countTime: total?.time, sections: sections, gateways: gateways,
            events: withEvents ? events.reversed().filter { $0.region.store == store }.map(EventView.init) : nil)
    }

    /// The newest events of every store in `scope`, newest first.
    func eventsView(_ scope: StoreScope) -> [EventView] {
        events.reversed().filter { scope.admits($0.region.store) }.map(EventView.init)
    }

    /// A device's state, or nil when none is held or it is of a store outside `scope` (a device
    /// in no store is the whole chain's).
    func deviceView(_ device: DeviceID, _ scope: StoreScope) -> DeviceView? {
        guard let state = devices[device] else { return nil }
        guard let store = state.region?.store else { return scope == .chain ? DeviceView(state) : nil }
        return scope.admits(store) ? DeviceView(state) : nil
    }

    /// The broker link as the API shows it.
    var brokerView: HealthView.Broker {
        HealthView.Broker(state: broker.name, since: broker.since, detail: broker.detail)
    }

    /// The health panel at `now` (Unix ms), with the HTTP listener's figures `server`;
    /// statuses older than `staleAfter` ms are stale.
    func healthView(now: Int64, staleAfter: Int64, server: HealthView.Server) -> HealthView {
        let aggregatorViews = aggregators.values.sorted { $0.value.aggregator < $1.value.aggregator }.map { heard in
            let status = heard.value
            let age = max(0, now - status.time)
            let state = status.state == .offline ? "offline" : age > staleAfter ? "stale" : status.serving == false ? "standby" : "online"
            return HealthView.Aggregator(
                id: status.aggregator.rawValue, state: state, stores: status.stores, standbyFor: status.standbyFor?.rawValue,
                statusTime: status.time, statusAgeMs: age,
                lagMs: status.counters.lagMilliseconds, lostBatches: status.counters.loss.values.reduce(0, +),
                offlineGateways: status.counters.offlineCount ?? UInt64(status.counters.offline.count),
                devices: status.counters.devices, sightings: status.counters.sightings,
                rejects: status.counters.rejects.values.reduce(0, +), droppedPublishes: status.counters.droppedPublishes)
        }
        return HealthView(
            now: now, broker: brokerView, aggregators: aggregatorViews, gateways: gatewayHealth(),
            messages: messages, undecodable: undecodable, lastProblem: lastProblem.map { "\($0.topic): \($0.detail)" },
            devices: devices.count, devicesNotKept: devicesNotKept, gatewayStatusesDropped: gatewayStatusesDropped,
            aggregatorStatusesDropped: aggregatorStatusesDropped, server: server)
    }
}
