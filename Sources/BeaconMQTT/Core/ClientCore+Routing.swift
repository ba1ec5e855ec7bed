import CMosquitto

/// Subscriptions and connection listeners: who gets what the network thread receives.
extension ClientCore {
    /// A PUBLISH from the broker. The topic and payload are copied into Swift values here,
    /// before libmosquitto frees them, once however many subscriptions match.
    ///
    /// Which subscriptions get it: each subscription whose first matching filter is the one
    /// this copy was sent for. MQTT v5 brokers send one copy per matching filter, tagged with
    /// the filter's subscription identifier; MQTT 3.1.1 (no tags) gets one copy for all.
    /// A copy whose tags are all unknown here is routed by its topic instead.
    func deliver(_ pointer: UnsafePointer<mosquitto_message>, properties: OpaquePointer?) {
        let (routing, filterIDs) = state.withLock { ($0.routing, $0.filterIDs) }
        guard !routing.isEmpty else { return }
        let raw = pointer.pointee
        guard let topic = raw.topic else { return }
        let tags = Self.subscriptionIdentifiers(properties)
        var message: MQTTMessage?
        func hand(to entry: SubscriptionEntry) {
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
        if !tags.isEmpty {
            for entry in routing {
                guard let filter = entry.firstMatchingFilter(topic), let id = filterIDs[filter], tags.contains(id) else { continue }
                hand(to: entry)
            }
            // A copy tagged only with identifiers this client never gave (a persistent session's
            // queue, subscribed by an earlier process) goes by its topic alone.
            if message != nil || tags.contains(where: { tag in filterIDs.values.contains(tag) }) { return }
        }
        for entry in routing where entry.firstMatchingFilter(topic) != nil {
            hand(to: entry)
        }
    }

    /// The SUBSCRIPTION_IDENTIFIER properties of a PUBLISH (none for MQTT 3.1.1).
    private static func subscriptionIdentifiers(_ properties: OpaquePointer?) -> [UInt32] {
        guard let properties else { return [] }
        let identifier = Int32(MQTT_PROP_SUBSCRIPTION_IDENTIFIER.rawValue)
        var tags: [UInt32] = []
        var value: UInt32 = 0
        var next = mosquitto_property_read_varint(properties, identifier, &value, false)
        while let current = next {
            tags.append(value)
            next = mosquitto_property_read_varint(current, identifier, &value, true)
        }
        return tags
    }

    /// Sends one SUBSCRIBE; `mid` receives its packet id.
    func send(_ request: SubscribeRequest, mid: inout Int32) -> Int32 {
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if let identifier = request.identifier {
            mosquitto_property_add_varint(
                &properties, Int32(MQTT_PROP_SUBSCRIPTION_IDENTIFIER.rawValue), identifier)
        }
        return withCStringArray(request.filters) { pointers, count in
            mosquitto_subscribe_multiple(handle, &mid, count, pointers, Int32(request.qos.rawValue), 0, properties)
        }
    }

    /// Re-subscribes after a reconnect without a kept session. Runs inside the connect
    /// callback on the network thread, so the SUBACKs cannot be processed before the mids are
    /// recorded as our own.
    func restore(_ requests: [SubscribeRequest]) {
        for request in requests {
            var mid: Int32 = 0
            let rc = send(request, mid: &mid)
            if rc == MOSQ_ERR_SUCCESS {
                state.withLock { _ = $0.internalMids.insert(mid) }
            } else {
                logger.error(
                    "re-subscribe failed",
                    metadata: ["mqtt.filters": "\(request.filters)", "mqtt.error": "\(MQTTError.fromReturnCode(rc))"])
            }
        }
    }

    /// Registers a subscription before its SUBSCRIBE goes out, so retained messages that
    /// follow the SUBACK are routed. Returns the connection epoch and the packets to send, or
    /// throws if not connected.
    func register(_ entry: SubscriptionEntry) throws(MQTTError) -> (epoch: UInt64, requests: [SubscribeRequest]) {
        try state.withLock { state throws(MQTTError) in
            switch state.phase {
            case .connected: break
            case .closed: throw .shutdown
            default: throw .notConnected
            }
            state.subscriptions[entry.id] = entry
            state.rebuildRouting()
            let requests = state.subscribeRequests(for: entry.filters, version: configuration.protocolVersion)
            return (state.epoch, requests)
        }
    }

    /// Registers a subscription declared before the first connect; ``didConnect`` sends it.
    func declare(_ entry: SubscriptionEntry) throws(MQTTError) {
        try state.withLock { state throws(MQTTError) in
            switch state.phase {
            case .idle: break
            case .closed: throw .shutdown
            default: throw .connectInProgress
            }
            state.subscriptions[entry.id] = entry
            state.declaredBeforeConnect = true
            state.rebuildRouting()
            for filter in entry.filters { _ = state.identifier(for: filter) }
        }
    }

    /// A subscription's stream ended (consumer gone, cancelled, unsubscribed, or a failed
    /// subscribe). Sends UNSUBSCRIBE for the filters no other subscription still uses; nobody
    /// waits for the UNSUBACK.
    ///
    /// The UNSUBSCRIBE is queued with ``state`` held, for two reasons: a new subscription to the
    /// same filter registers under the same lock, so its SUBSCRIBE always goes out after this
    /// UNSUBSCRIBE (never the other way round, which would cancel it at the broker); and the
    /// handle is destroyed only after the phase became `.closed`, which this checks. No
    /// callback that takes ``state`` can run inside the call: the network thread runs the
    /// others, and the log callback does not take it.
    /// `keepAtBroker`: remove the routing only; the broker-side subscription stays (a persistent
    /// session's declared subscription whose consumer was cancelled).
    func subscriptionEnded(id: UInt64, keepAtBroker: Bool = false) {
        let removed = state.withLock { state -> SubscriptionEntry? in
            guard let entry = state.subscriptions.removeValue(forKey: id) else { return nil }
            state.rebuildRouting()
            let stillUsed = Set(state.subscriptions.values.flatMap(\.filters))
            let orphaned = Array(Set(entry.filters).subtracting(stillUsed)).sorted()
            for filter in orphaned { state.filterIDs[filter] = nil }
            guard state.phase == .connected, !orphaned.isEmpty, !keepAtBroker else { return entry }
            var mid: Int32 = 0
            _ = withCStringArray(orphaned) { pointers, count in
                mosquitto_unsubscribe_multiple(handle, &mid, count, pointers, nil)
            }
            return entry
        }
        _ = removed  // released here, outside the lock
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
