import BeaconCore
import BeaconEngine
import BeaconWire

extension MessageProcessor {
    /// Turns engine decisions into wire messages, in order.
    mutating func publish(_ outputs: [EngineOutput], into out: inout [Outbound]) {
        let chain = engine.chain
        for output in outputs {
            switch output {
            case .transition(let t):
                let store = chain.stores[t.store]
                let region: RegionScope = t.section.map { .section(SectionRef(store: store.major, section: chain.sections[$0].minor)) }
                    ?? .store(store.major)
                let event = RegionEvent(
                    kind: t.kind == .enter ? .enter : .exit, region: region, device: t.device, uuid: chain.siteUUID,
                    storeName: store.name, sectionName: t.section.map { chain.sections[$0].name }, time: t.time,
                    fromSection: t.kind == .enter && t.section != nil ? t.otherSection.map { chain.sections[$0].minor } : nil,
                    dwellMilliseconds: t.dwell, proximity: t.proximity, accuracy: t.accuracy, confidence: t.confidence,
                    sequence: t.sequence)
                out.append(Outbound(topic: scheme.string(for: event.topic), payload: event.encoded(), delivery: .event))
            case .state(let s):
                guard arbiter.admits(s) else { continue }
                let state = deviceState(s)
                let expiry: UInt32? = s.state == .outside ? outsideStateExpiry : nil
                out.append(Outbound(topic: scheme.string(for: state.topic), payload: state.encoded(), delivery: .retained(expirySeconds: expiry)))
            case .occupancy(let c):
                let store = chain.stores[c.store]
                let region: RegionScope = c.section.map { .section(SectionRef(store: store.major, section: chain.sections[$0].minor)) }
                    ?? .store(store.major)
                let occupancy = Occupancy(region: region, name: c.section.map { chain.sections[$0].name } ?? store.name, count: c.count, time: c.time)
                out.append(Outbound(topic: scheme.string(for: occupancy.topic), payload: occupancy.encoded(), delivery: .retained(expirySeconds: nil)))
            }
        }
    }

    func deviceState(_ s: DeviceSnapshot) -> DeviceState {
        let chain = engine.chain
        let store = s.store.map { chain.stores[$0] }
        let region: RegionScope? = store.map { store in
            s.section.map { .section(SectionRef(store: store.major, section: chain.sections[$0].minor)) } ?? .store(store.major)
        }
        let presence: DeviceState.Presence = switch s.state {
        case .inside: .inside
        case .outside: .outside
        case .unknown: .unknown
        }
        return DeviceState(
            device: s.device, presence: presence, uuid: chain.siteUUID, region: region, storeName: store?.name,
            sectionName: s.section.map { chain.sections[$0].name }, since: s.since, storeSince: s.storeSince,
            sectionSince: s.sectionSince, lastSeen: s.lastSeen,
            proximity: s.proximity, accuracy: s.accuracy, confidence: s.confidence, sequence: s.sequence)
    }
}
