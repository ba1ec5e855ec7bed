import CMosquitto

/// Subscriptions and connection listeners: who gets what the network thread receives.
extension ClientCore {
    /// A PUBLISH from the broker. The topic and payload are copied into Swift values here,
    /// before libmosquitto frees them, once however many subscriptions match.
    func deliver(_ pointer: UnsafePointer<mosquitto_message>) {
        let routing = state.withLock { $0.routing }
        guard !routing.isEmpty else { return }
        let raw = pointer.pointee
        guard let topic = raw.topic else { return }
        var message: MQTTMessage?
        for entry in routing where entry.matches(topic) {
            if message == nil {
                let payload: [UInt8]
                if let bytes = raw.payload, raw.payloadlen > 0 {
                    payload = Array(UnsafeRawBufferPointer(start: bytes, count: Int(raw.payloadlen)))
                } else {
                    payload = []
                }
                message = MQTTMessage(
                    topic: String(cString: topic), payload: payload,
                    qos: MQTTQoS(rawValue: Int(raw.qos)) ?? .atMostOnce, retain: raw.retain)
            }
            entry.deliver(message!)
        }
    }

    /// Re-subscribes after a reconnect without a kept session. Runs inside the connect
    /// callback on the network thread, so the SUBACKs cannot be processed before the mids are
    /// recorded as our own.
    func restore(_ entries: [SubscriptionEntry]) {
        let byQoS = Dictionary(grouping: entries, by: \.qos)
        for (qos, group) in byQoS {
            let filters = Array(Set(group.flatMap(\.filters))).sorted()
            var mid: Int32 = 0
            let rc = withCStringArray(filters) { pointers, count in
                mosquitto_subscribe_multiple(handle, &mid, count, pointers, Int32(qos.rawValue), 0, nil)
            }
            if rc == MOSQ_ERR_SUCCESS {
                state.withLock { _ = $0.internalMids.insert(mid) }
            } else {
                logger.error(
                    "re-subscribe failed", metadata: ["mqtt.filters": "\(filters)", "mqtt.error": "\(MQTTError.fromReturnCode(rc))"])
            }
        }
    }

    /// Registers a subscription before its SUBSCRIBE goes out, so retained messages that
    /// follow the SUBACK are routed. Returns the connection epoch, or throws if not connected.
    func register(_ entry: SubscriptionEntry) throws(MQTTError) -> UInt64 {
        try state.withLock { state throws(MQTTError) -> UInt64 in
            switch state.phase {
            case .connected: break
            case .closed: throw .shutdown
            default: throw .notConnected
            }
            state.subscriptions[entry.id] = entry
            state.rebuildRouting()
            return state.epoch
        }
    }

    /// A subscription's stream ended (consumer gone, cancelled, unsubscribed, or a failed
    /// subscribe). Sends UNSUBSCRIBE for the filters no other subscription still uses; nobody
    /// waits for the UNSUBACK. The call is made under the lock so that it cannot overlap the
    /// teardown, which only destroys the handle after the phase became `.closed`.
    func subscriptionEnded(id: UInt64) {
        let removed = state.withLock { state -> SubscriptionEntry? in
            guard let entry = state.subscriptions.removeValue(forKey: id) else { return nil }
            state.rebuildRouting()
            guard state.phase == .connected else { return entry }
            let stillUsed = Set(state.subscriptions.values.flatMap(\.filters))
            let orphaned = entry.filters.filter { !stillUsed.contains($0) }
            if !orphaned.isEmpty {
                var mid: Int32 = 0
                _ = withCStringArray(orphaned) { pointers, count in
                    mosquitto_unsubscribe_multiple(handle, &mid, count, pointers, nil)
                }
            }
            return entry
        }
        // Released here, outside the lock.
        _ = removed
    }

    /// A new listener for connection events. See ``MQTTClient/connectionEvents()``.
    func addListener() -> AsyncStream<MQTTConnectionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: MQTTConnectionEvent.self, bufferingPolicy: .bufferingNewest(64))
        let closed = state.withLock { state -> Bool in
            guard state.phase != .closed else { return true }
            let id = state.makeID()
            state.listeners[id] = continuation
            continuation.onTermination = { [weak self] _ in
                self?.state.withLock { _ = $0.listeners.removeValue(forKey: id) }
            }
            return false
        }
        if closed {
            continuation.yield(.closed)
            continuation.finish()
        }
        return stream
    }

    /// Sends an event to every listener.
    func broadcast(_ event: MQTTConnectionEvent) {
        let listeners = state.withLock { Array($0.listeners.values) }
        for listener in listeners { listener.yield(event) }
    }
}
