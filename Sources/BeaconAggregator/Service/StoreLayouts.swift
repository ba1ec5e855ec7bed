import BeaconCore
import BeaconEngine
import BeaconWire

extension AggregatorSettings {
    /// The retained layout of every store this instance owns (`<root>/stores/<store>/layout`),
    /// published once at start with the first status, so that a dashboard can draw the chain's
    /// stores without the config file. Retained, they stay after the instance stops: they describe
    /// the configuration, not the instance. A restart with a changed chain replaces them.
    func layoutMessages() -> [Outbound] {
        let now = clock()
        return chain.stores.filter { stores.contains($0.major) }.map { store in
            let layout = StoreLayout(chain: chain, store: store, time: now)
            return Outbound(topic: scheme.string(for: layout.topic), payload: layout.encoded(), delivery: .retained(expirySeconds: nil))
        }
    }
}

extension StoreLayout {
    /// The plan of `store` as `chain` describes it: sections in configuration order, adjacency as
    /// minors (when the config gives it), gateways with their section's minor.
    init(chain: Chain, store: Chain.Store, time: Int64) {
        let sections = store.sections.map { index in
            let section = chain.sections[index]
            return Section(
                minor: section.minor, name: section.name,
                polygon: section.polygon.map { $0.map { PlanPoint(x: $0.x, y: $0.y) } },
                adjacent: section.adjacent.map { $0.map { chain.sections[$0].minor }.sorted() },
                streetDoor: section.streetDoor, floor: section.floor)
        }
        let gateways = store.gateways.map { index in
            let gateway = chain.gateways[index]
            return Gateway(
                id: gateway.id, section: chain.sections[gateway.section].minor,
                position: gateway.position.map { PlanPoint(x: $0.x, y: $0.y) })
        }
        self.init(store: store.major, name: store.name, time: time, sections: sections, gateways: gateways)
    }
}
