import CMosquitto

extension MQTTClient {
    /// Publishes one message and returns when it is delivered as far as its QoS promises.
    ///
    /// - QoS 0: returns when libmosquitto wrote it to the socket; throws
    ///   ``MQTTError/connectionLost(code:reason:)`` if the connection dropped first.
    /// - QoS 1 / 2: returns when the broker acknowledged it (PUBACK / PUBCOMP). If the
    ///   connection drops first, libmosquitto keeps the message and resends it after the
    ///   reconnect, and this call keeps waiting; ``disconnect()`` ends it with
    ///   ``MQTTError/shutdown``.
    ///
    /// Cancelling the calling task ends the wait with ``MQTTError/cancelled``; a QoS 1 or 2
    /// message stays with libmosquitto, which may still deliver it.
    ///
    /// Throws ``MQTTError/notConnected`` at once while there is no connection, so a caller with
    /// an outage buffer (the edge) keeps the message instead of waiting.
    /// - Parameters:
    ///   - topic: a topic name (no `+` or `#`).
    ///   - payload: the bytes to send.
    ///   - qos: delivery guarantee.
    ///   - retain: whether the broker keeps it as the topic's current value for new subscribers.
    ///   - messageExpiry: MQTT v5 only (property MESSAGE_EXPIRY_INTERVAL, whole seconds rounded
    ///     up): the broker discards the message, retained copy included, once it is older.
    ///     With MQTT 3.1.1 the call throws ``MQTTError/protocolError(code:reason:)``.
    public func publish(
        to topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool, messageExpiry: Duration? = nil
    ) async throws(MQTTError) {
        try await enqueuePublish(to: topic, payload: payload, qos: qos, retain: retain, messageExpiry: messageExpiry).acknowledged()
    }

    /// Hands one message to libmosquitto and returns at once, with a receipt whose
    /// ``MQTTPublishReceipt/acknowledged()`` waits for what ``publish(to:payload:qos:retain:messageExpiry:)``
    /// waits for. Messages go out in the order of these calls, so a caller can keep many in
    /// flight — one round trip per message no longer bounds its rate — and still publish in
    /// order. Await every receipt exactly once, and keep well under 65 535 outstanding: an
    /// acknowledgement nobody collects stays parked until the client disconnects, and once
    /// libmosquitto reuses its packet id a later receipt would collect it as its own.
    /// - Throws: what `publish` throws before it waits: ``MQTTError/notConnected``,
    ///   ``MQTTError/shutdown``, ``MQTTError/invalidTopic(topic:reason:)``,
    ///   ``MQTTError/payloadTooLarge(size:limit:)``, ``MQTTError/protocolError(code:reason:)``.
    public func enqueuePublish(
        to topic: String, payload: [UInt8], qos: MQTTQoS, retain: Bool, messageExpiry: Duration? = nil
    ) throws(MQTTError) -> MQTTPublishReceipt {
        try ClientCore.checkPublishTopic(topic)
        guard payload.count <= Mosquitto.maximumPayload else {
            throw .payloadTooLarge(size: payload.count, limit: Mosquitto.maximumPayload)
        }
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if let messageExpiry {
            guard configuration.protocolVersion == .v5 else {
                throw .protocolError(
                    code: Int(MOSQ_ERR_NOT_SUPPORTED.rawValue), reason: "message expiry needs MQTT v5")
            }
            let seconds = messageExpiry.wholeSeconds(floor: 1, ceiling: Int(UInt32.max))
            mosquitto_property_add_int32(
                &properties, Int32(MQTT_PROP_MESSAGE_EXPIRY_INTERVAL.rawValue), UInt32(seconds))
        }
        let (epoch, packetLimit) = try core.state.withLock { state throws(MQTTError) in
            switch state.phase {
            case .connected: return (state.epoch, state.maximumPacketSize)
            case .closed: throw .shutdown
            default: throw .notConnected
            }
        }
        let handle = core.handle
        let survives = qos != .atMostOnce
        let sent = core.send(survivesReconnect: survives, { mid in
            payload.withUnsafeBytes { bytes in
                mosquitto_publish_v5(
                    handle, &mid, topic, Int32(bytes.count), bytes.baseAddress, Int32(qos.rawValue),
                    retain, properties)
            }
        }, failure: { rc in
            .fromReturnCode(rc, topic: topic, payloadSize: payload.count, packetLimit: packetLimit)
        })
        switch sent {
        case .success(let mid):
            return MQTTPublishReceipt(core: core, mid: mid, epoch: epoch, survivesReconnect: survives, topic: topic)
        case .failure(let error):
            throw error
        }
    }
}

/// A message handed to libmosquitto by ``MQTTClient/enqueuePublish(to:payload:qos:retain:messageExpiry:)``.
public struct MQTTPublishReceipt: Sendable {
    let core: ClientCore
    let mid: Int32
    let epoch: UInt64
    let survivesReconnect: Bool
    /// The topic it was published to.
    public let topic: String

    /// Returns when the message is delivered as far as its QoS promises (see
    /// ``MQTTClient/publish(to:payload:qos:retain:messageExpiry:)``); throws
    /// ``MQTTError/brokerReason(_:)`` when a v5 broker refused it, ``MQTTError/shutdown`` after
    /// a disconnect, ``MQTTError/connectionLost(code:reason:)`` for a QoS 0 message whose
    /// connection dropped first, ``MQTTError/cancelled`` when the waiting task is cancelled.
    /// Await it once.
    public func acknowledged() async throws(MQTTError) {
        switch await core.awaitAck(mid: mid, epoch: epoch, survivesReconnect: survivesReconnect) {
        case .success(let codes):
            // v5 PUBACK/PUBREC reason codes of 0x80 and above are refusals (ACL, quota, …).
            if let code = codes.first, code >= 0x80 {
                core.logger.warning(
                    "broker refused a publish",
                    metadata: ["mqtt.topic": "\(topic)", "mqtt.reason": "\(Mosquitto.reasonText(code))"])
                throw .brokerReason(code)
            }
        case .failure(let error):
            throw error
        }
    }
}

extension ClientCore {
    /// Checks a publish (or will) topic before libmosquitto does, for an error that names it.
    static func checkPublishTopic(_ topic: String) throws(MQTTError) {
        if topic.isEmpty { throw .invalidTopic(topic: topic, reason: "empty") }
        if topic.utf8.count > 65_535 {
            throw .invalidTopic(topic: topic, reason: "longer than 65535 bytes")
        }
        switch mosquitto_pub_topic_check2(topic, topic.utf8.count) {
        case MOSQ_ERR_SUCCESS: return
        case MOSQ_ERR_MALFORMED_UTF8: throw .invalidTopic(topic: topic, reason: "not valid UTF-8 or contains a control character")
        default: throw .invalidTopic(topic: topic, reason: "wildcards (+ or #) are not allowed in a publish topic")
        }
    }

    /// Checks a subscription filter.
    static func checkFilter(_ filter: String) throws(MQTTError) {
        if filter.isEmpty { throw .invalidTopic(topic: filter, reason: "empty") }
        if filter.utf8.count > 65_535 {
            throw .invalidTopic(topic: filter, reason: "longer than 65535 bytes")
        }
        switch mosquitto_sub_topic_check2(filter, filter.utf8.count) {
        case MOSQ_ERR_SUCCESS: return
        case MOSQ_ERR_MALFORMED_UTF8: throw .invalidTopic(topic: filter, reason: "not valid UTF-8 or contains a control character")
        default: throw .invalidTopic(topic: filter, reason: "+ must fill a whole level and # must be the last level")
        }
    }
}
