import BeaconCore
import BeaconEngine
public import BeaconWire

extension MessageProcessor {
    /// Restores device states read back at start-up (retained topics or a snapshot file); states
    /// of stores this instance does not own are left alone. Returns how many were restored.
    @discardableResult
    public mutating func restore(_ states: [DeviceState]) -> Int {
        var none: [Outbound] = []
        return restore(states, exits: [:], into: &none)
    }

    /// The same, with a ``RestorePlan``'s exits decided again first and its states published
    /// again (see ``SharedStateArbiter/restorable(fromFile:retained:stores:now:complete:outsideExpiry:)``):
    /// `exits` (by device id) are exits a previous run decided that never reached the broker,
    /// decided here, at restore, so that no snapshot, shutdown or re-published state can see the
    /// stale `inside` in between; `republish` (device ids) are devices whose newer state never
    /// reached it. What to publish is appended to `out`, to go before anything else.
    public mutating func restore(_ states: [DeviceState], exits: [String: Int64], republish: Set<String> = [],
                                 into out: inout [Outbound]) -> Int {
        let restored: [RestoredState] = states.compactMap { s in
            guard let region = s.region, stores.contains(region.store) else { return nil }
            return RestoredState(
                device: s.device, state: s.presence == .inside ? .inside : s.presence == .outside ? .outside : .unknown, store: region.store,
                section: region.section, since: s.since, storeSince: s.storeSince, sectionSince: s.sectionSince,
                lastSeen: s.lastSeen, sequence: s.sequence, exitAt: exits[s.device.rawValue])
        }
        var outputs: [EngineOutput] = []
        let skipped = engine.restore(restored, into: &outputs)
        // States decided after the one the broker holds, never published: published now.
        for s in restored where republish.contains(s.device.rawValue) {
            if let mine = engine.currentState(of: s.device), mine.state != .outside { outputs.append(.state(mine)) }
        }
        publish(outputs, into: &out)
        return restored.count - skipped.count
    }

    /// A device state as read from the shared retained topics — at start, and, with `--stores`, as
    /// the other instances publish them — once its topic and payload agree: the topic is a
    /// device's state topic, the payload decodes and names that device. Anything else is refused
    /// (``Counters/sharedStatesRefused``, its reason in `rejects`, a dead-letter copy appended to
    /// `out`): a state on `devices/A/state` naming B must not be restored nor answered as B.
    /// An empty payload (a cleared topic) is neither a state nor a problem: ignored, uncounted.
    public mutating func sharedState(topic: String, payload: [UInt8], now: Int64?, into out: inout [Outbound]) -> (DeviceState?, Verdict) {
        guard !payload.isEmpty else { return (nil, .ignored) }
        let device: DeviceID
        do {
            guard case .deviceState(let named) = try scheme.parse(topic) else { return (nil, .ignored) }
            device = named
        } catch {
            counters.sharedStatesRefused += 1
            return (nil, reject(topic: topic, reason: .topic(error.reason), detail: error.description, payload: payload, now: now, into: &out))
        }
        let state: DeviceState
        do {
            state = try decoder.decode(DeviceState.self, from: payload)
        } catch {
            counters.sharedStatesRefused += 1
            return (nil, reject(topic: topic, reason: .payload(error.reason), detail: error.description, field: error.field, payload: payload, now: now, into: &out))
        }
        guard state.device == device else {
            counters.sharedStatesRefused += 1
            let detail = "payload dev \(state.device) ≠ topic device \(device): a state is kept under its topic, so it would be restored as one device and answered as another"
            return (nil, reject(topic: topic, reason: .deviceMismatch, detail: detail, field: "dev", payload: payload, now: now, into: &out))
        }
        return (state, .accepted)
    }

    /// A device state read from the shared retained topics — at start, and, with `--stores`, as
    /// every instance publishes them (this one's included, in the broker's order): the
    /// ``SharedStateArbiter`` decides whether this instance publishes a state of its own in
    /// answer, appended to `out`.
    public mutating func noteState(_ state: DeviceState, into out: inout [Outbound]) {
        guard arbiter.isShared else { return }
        let mine = engine.currentState(of: state.device)
        if let answer = arbiter.note(state, mine: mine) { publish([.state(answer)], into: &out) }
    }

    /// A device's state topic seen cleared on the shared topics (an empty retained message): the
    /// ``SharedStateArbiter`` decides whether this instance publishes its state again, appended
    /// to `out`. Any other topic is ignored.
    public mutating func noteCleared(topic: String, into out: inout [Outbound]) {
        guard arbiter.isShared, case .deviceState(let device)? = try? scheme.parse(topic) else { return }
        if let again = arbiter.noteCleared(device, mine: engine.currentState(of: device)) { publish([.state(again)], into: &out) }
    }

    /// The state of every device remembered, outside ones included, as retained-state payloads
    /// (the snapshot: with several instances the retained topic may hold another's state, so the
    /// snapshot is where a device's `seq` survives a restart).
    public func snapshot() -> [DeviceState] {
        engine.rememberedStates().map { deviceState($0) }
    }

    /// The highest batch processed per gateway heard (the snapshot's other half).
    public func gatewayProgress() -> [GatewayProgress] {
        engine.gatewayProgress().map { GatewayProgress(gateway: $0.id, sequence: $0.seq, sent: $0.sent, epoch: $0.epoch) }
    }

    /// Continues the gateways' sequences from a snapshot's progress (see
    /// ``AggregationEngine/resumeGateways(_:)``). Returns how many gateways were resumed.
    @discardableResult
    public mutating func resume(_ progress: [GatewayProgress]) -> Int {
        engine.resumeGateways(progress.map { GatewayResumePoint(id: $0.gateway, seq: $0.sequence, sent: $0.sent, epoch: $0.epoch) })
    }
}
