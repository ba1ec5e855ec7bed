import CMosquitto

extension MQTTClient {
    /// Subscribes to `filters` and returns once the broker granted them (SUBACK).
    ///
    /// Messages matching any of the filters arrive on the returned ``MQTTSubscription`` in
    /// order, starting with retained messages. The subscription survives reconnects (the
    /// client re-subscribes when the broker did not keep the session).
    ///
    /// Each matching message arrives once per subscription, also when filters overlap (MQTT v5
    /// uses one subscription identifier per filter to tell the broker's copies apart). Retained
    /// messages are sent again by the broker whenever a filter is subscribed again — after a
    /// reconnect, or when another subscription uses the same filter — so treat them as state.
    /// - Parameters:
    ///   - filters: topic filters, `+` and `#` wildcards allowed; at least one.
    ///   - qos: the maximum QoS to receive with.
    /// - Throws: ``MQTTError/invalidTopic(topic:reason:)``, ``MQTTError/notConnected``,
    ///   ``MQTTError/notAuthorized(reason:)`` (ACL, v5), ``MQTTError/protocolError(code:reason:)``
    ///   for another refusal, ``MQTTError/connectionLost(code:reason:)`` if the connection
    ///   dropped before the SUBACK.
    public func subscribe(to filters: [String], qos: MQTTQoS) async throws(MQTTError) -> MQTTSubscription {
        guard !filters.isEmpty else { throw .invalidTopic(topic: "", reason: "no topic filter given") }
        for filter in filters { try ClientCore.checkFilter(filter) }

        let id = core.state.withLock { $0.makeID() }
        var logger = core.logger
        logger[metadataKey: "mqtt.filters"] = "\(filters)"
        let (stream, entry) = SubscriptionEntry.make(id: id, filters: filters, qos: qos, configuration: configuration, logger: logger) { [weak core] _ in
            core?.subscriptionEnded(id: id)
        }

        let epoch: UInt64
        let requests: [SubscribeRequest]
        do {
            (epoch, requests) = try core.register(entry)
        } catch {
            entry.finish()
            throw error
        }
        for request in requests {
            let result = await core.sendAndAwaitAck(
                epoch: epoch, survivesReconnect: false,
                send: { mid in core.send(request, mid: &mid) },
                failure: { rc in .fromReturnCode(rc, topic: request.filters[0]) })
            let failure: MQTTError?
            switch result {
            case .success(let codes):
                // MQTT 3.1.1 grants QoS 0–2 or fails with 0x80; v5 codes of 0x80 and above fail.
                failure = codes.first(where: { $0 >= 0x80 }).map { MQTTError.brokerReason($0) }
            case .failure(let error):
                failure = error
            }
            if let failure {
                logger.warning("subscribe failed", metadata: ["mqtt.error": "\(failure)"])
                entry.finish()
                throw failure
            }
        }
        logger.debug("subscribed", metadata: ["mqtt.qos": "\(qos.rawValue)"])
        return MQTTSubscription(stream: stream, entry: entry)
    }

    /// Declares a subscription before ``connect()``, for a persistent session
    /// (``MQTTConfiguration/cleanSession`` `false`).
    ///
    /// A broker that kept the session starts sending the messages it queued while the client was
    /// away as soon as it accepts the connection — before a ``subscribe(to:qos:)`` after
    /// `connect()` could be in place, so they would be dropped. A subscription declared here is in
    /// place from the first byte: its messages wait in its buffer (``MQTTConfiguration/inboundBufferCapacity``)
    /// until the consumer reads them. The SUBSCRIBE goes out with every connect, so the filters are
    /// also right when the broker did not keep the session or the filters changed since; a refusal
    /// there is logged, not thrown. With a persistent session, a consumer that is cancelled (a
    /// shutdown) leaves the subscription at the broker, which goes on queueing for the next run;
    /// ``unsubscribe(_:)`` removes it.
    ///
    /// `onArrival`, when given, is called with each message on the network thread before it is
    /// buffered for the consumer, within libmosquitto's message callback: what it keeps (a
    /// journal in a file) survives the process being killed before the consumer has used the
    /// message, though the broker already counts it delivered (libmosquitto 2.0.11 sends the
    /// PUBACK just before the callback, later versions just after).
    /// - Throws: ``MQTTError/invalidTopic(topic:reason:)``, ``MQTTError/connectInProgress`` once
    ///   `connect()` has been called, ``MQTTError/shutdown`` after ``disconnect()``.
    public func declareSubscription(
        to filters: [String], qos: MQTTQoS, onArrival: (@Sendable (MQTTMessage) -> Void)? = nil
    ) throws(MQTTError) -> MQTTSubscription {
        guard !filters.isEmpty else { throw .invalidTopic(topic: "", reason: "no topic filter given") }
        for filter in filters { try ClientCore.checkFilter(filter) }
        let id = core.state.withLock { $0.makeID() }
        var logger = core.logger
        logger[metadataKey: "mqtt.filters"] = "\(filters)"
        let persistent = !configuration.cleanSession
        let (stream, entry) = SubscriptionEntry.make(
            id: id, filters: filters, qos: qos, configuration: configuration, logger: logger, onArrival: onArrival
        ) { [weak core] termination in
            // A persistent session's subscription outlives a consumer that was cancelled (a
            // shutdown): the broker keeps queueing for the next run. unsubscribe(_:) removes it.
            let keep: Bool
            if case .cancelled = termination { keep = persistent } else { keep = false }
            core?.subscriptionEnded(id: id, keepAtBroker: keep)
        }
        do {
            try core.declare(entry)
        } catch {
            entry.finish()
            throw error
        }
        return MQTTSubscription(stream: stream, entry: entry)
    }

    /// Ends a subscription: its sequence finishes (after the messages already buffered) and
    /// the client sends UNSUBSCRIBE for filters that no other subscription uses. Does not wait
    /// for the broker's UNSUBACK; messages already in flight for the filters are discarded.
    public func unsubscribe(_ subscription: MQTTSubscription) {
        subscription.entry.finish()
    }
}
