import CMosquitto
import Dispatch
import Logging

/// libmosquitto's callbacks. They run on its network thread (and, for a DISCONNECT written
/// while no thread runs, on ``control``), reach the core through the `void *` user data, copy
/// what they need from C memory before returning, and never create a Task: a message costs a
/// lock, a copy and an `AsyncStream` yield.
extension ClientCore {
    /// Registers every callback. Called once from ``attach()``, before the first
    /// `mosquitto_loop_start`. The v5 variants are used for both protocol versions: libmosquitto
    /// calls them with `NULL` properties for MQTT 3.1.1.
    func registerCallbacks() {
        mosquitto_connect_v5_callback_set(handle) { _, userdata, rc, flags, properties in
            ClientCore.from(userdata)?.didConnect(rc: rc, flags: flags, properties: properties)
        }
        mosquitto_disconnect_v5_callback_set(handle) { _, userdata, rc, _ in
            ClientCore.from(userdata)?.didDisconnect(rc: rc)
        }
        mosquitto_publish_v5_callback_set(handle) { _, userdata, mid, reasonCode, _ in
            ClientCore.from(userdata)?.acknowledge(mid: mid, codes: [reasonCode])
        }
        mosquitto_subscribe_v5_callback_set(handle) { _, userdata, mid, count, granted, _ in
            let codes = granted.map { Array(UnsafeBufferPointer(start: $0, count: Int(count))) } ?? []
            ClientCore.from(userdata)?.acknowledge(mid: mid, codes: codes)
        }
        mosquitto_unsubscribe_v5_callback_set(handle) { _, userdata, mid, _ in
            // Nobody waits for UNSUBACK (see subscriptionEnded); trace it for debugging.
            ClientCore.from(userdata)?.logger.trace("unsubscribe acknowledged", metadata: ["mqtt.mid": "\(mid)"])
        }
        mosquitto_message_v5_callback_set(handle) { _, userdata, message, properties in
            guard let message else { return }
            ClientCore.from(userdata)?.deliver(message, properties: properties)
        }
        mosquitto_log_callback_set(handle) { _, userdata, level, text in
            guard let text else { return }
            ClientCore.from(userdata)?.didLog(level: level, text: text)
        }
    }

    /// CONNACK (first connect or reconnect).
    func didConnect(rc: Int32, flags: Int32, properties: OpaquePointer?) {
        guard rc == 0 else {
            didRefuse(rc: rc)
            return
        }
        var packetLimit: UInt32 = 0
        if let properties {
            mosquitto_property_read_int32(
                properties, Int32(MQTT_PROP_MAXIMUM_PACKET_SIZE.rawValue), &packetLimit, false)
        }
        let sessionPresent = flags & 1 != 0
        let keptSubscriptions = sessionPresent && !configuration.cleanSession
        typealias Waiter = CheckedContinuation<Result<Void, MQTTError>, Never>
        let version = configuration.protocolVersion
        let outcome = state.withLock { state -> (Waiter?, [SubscribeRequest], Bool)? in
            switch state.phase {
            case .connecting where state.wireStarted, .reconnecting:
                let waiter = state.connectWaiter
                state.connectWaiter = nil
                state.phase = .connected
                state.maximumPacketSize = packetLimit > 0 ? Int(packetLimit) : nil
                // Declared subscriptions go out on the first connect even into a kept session:
                // the filters may have changed since the session was made.
                let declared = state.declaredBeforeConnect && waiter != nil
                let filters = keptSubscriptions && !declared ? [] : state.routing.flatMap(\.filters)
                return (waiter, state.subscribeRequests(for: filters, version: version), waiter == nil)
            default:
                // A connection nobody wants any more (timed out, closed): its teardown is queued.
                return nil
            }
        }
        guard let (waiter, resubscribe, isReconnect) = outcome else { return }
        if !resubscribe.isEmpty { restore(resubscribe) }
        logger.info(
            isReconnect ? "reconnected" : "connected",
            metadata: ["mqtt.session_present": "\(sessionPresent)", "mqtt.resubscribed": "\(resubscribe.flatMap(\.filters).count)"])
        broadcast(.connected(sessionPresent: sessionPresent))
        waiter?.resume(returning: .success(()))
    }

    /// A CONNACK with a refusal. During connect() it fails the call; during an automatic
    /// reconnect libmosquitto keeps retrying (the broker may come back with the account).
    private func didRefuse(rc: Int32) {
        let error = MQTTError.connackRefusal(rc, protocolVersion: configuration.protocolVersion)
        let attempt = state.withLock { state -> UInt64? in
            state.phase == .connecting && state.wireStarted ? state.attempt : nil
        }
        if let attempt {
            // Stop libmosquitto from retrying in a second while the teardown is queued.
            mosquitto_disconnect(handle)
            failConnect(attempt: attempt, error: error)
        } else {
            logger.warning("reconnect refused", metadata: ["mqtt.error": "\(error)"])
        }
    }

    /// The socket closed: our DISCONNECT, the broker, the network, or a failed handshake.
    func didDisconnect(rc: Int32) {
        enum Reaction {
            case ignore
            case failAttempt(UInt64)
            case lost(reconnecting: Bool, failed: [PendingAck])
        }
        let reconnects = configuration.reconnect.isEnabled
        let reaction = state.withLock { state -> Reaction in
            switch state.phase {
            case .connecting where state.wireStarted:
                return .failAttempt(state.attempt)
            case .connected:
                state.epoch += 1
                state.phase = reconnects ? .reconnecting : .lost
                state.internalMids = []
                var failed: [PendingAck] = []
                for (mid, ack) in state.pending where !ack.survivesReconnect {
                    failed.append(ack)
                    state.pending[mid] = nil
                }
                return .lost(reconnecting: reconnects, failed: failed)
            default:
                return .ignore
            }
        }
        switch reaction {
        case .ignore:
            return
        case .failAttempt(let attempt):
            mosquitto_disconnect(handle)
            failConnectCheckingTLS(attempt: attempt, error: .disconnectReason(rc, tlsDetail: takeConnectErrors()))
        case .lost(let reconnecting, let failed):
            let error = MQTTError.disconnectReason(rc, tlsDetail: nil)
            // Without reconnect, "disconnecting" makes libmosquitto's loop end by itself.
            if !reconnecting { mosquitto_disconnect(handle) }
            logger.warning(
                "connection lost", metadata: ["mqtt.error": "\(error)", "mqtt.reconnecting": "\(reconnecting)"])
            for ack in failed { ack.continuation.resume(returning: .failure(error)) }
            broadcast(.lost(error))
        }
    }

    /// libmosquitto's log. OpenSSL failures only surface here: a failed handshake ends the
    /// network thread without a disconnect callback, so during connect() an OpenSSL error line
    /// fails the attempt with its text, and after it the connection is reported lost for good.
    ///
    /// This callback never takes ``state``: it can run synchronously inside a libmosquitto
    /// call that is made with ``state`` held (UNSUBSCRIBE in ``subscriptionEnded(id:)``).
    func didLog(level: Int32, text: UnsafePointer<CChar>) {
        let isError = level == MOSQ_LOG_ERR
        guard isError || level == MOSQ_LOG_WARNING || logger.logLevel <= .trace else { return }
        let line = String(cString: text)
        guard isError else {
            logger.log(level: level == MOSQ_LOG_WARNING ? .warning : .trace, "libmosquitto: \(line)")
            return
        }
        logger.debug("libmosquitto: \(line)")
        errorLines.withLock { lines in
            lines.append(line)
            if lines.count > 16 { lines.removeFirst() }
        }
        if line.hasPrefix("OpenSSL Error") {
            DispatchQueue.global().async { [weak self] in self?.tlsFailed(line) }
        }
    }

    /// Acts on an OpenSSL error line, off the callback (see ``didLog(level:text:)``).
    private func tlsFailed(_ line: String) {
        enum Reaction { case none, failAttempt(UInt64), lostForGood }
        let reaction = state.withLock { state -> Reaction in
            switch state.phase {
            case .connecting where state.wireStarted:
                return .failAttempt(state.attempt)
            case .reconnecting:
                state.phase = .lost
                return .lostForGood
            default:
                return .none
            }
        }
        switch reaction {
        case .none:
            return
        case .failAttempt(let attempt):
            failConnect(attempt: attempt, error: .tlsFailure(detail: line))
        case .lostForGood:
            let error = MQTTError.tlsFailure(detail: line)
            logger.error("reconnect failed in TLS; not retrying", metadata: ["mqtt.error": "\(error)"])
            control.async { self.quiesce() }
            broadcast(.lost(error))
        }
    }
}
