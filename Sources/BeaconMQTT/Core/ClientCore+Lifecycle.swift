import CMosquitto
import Dispatch
import Foundation

/// Connect, disconnect and teardown. The blocking libmosquitto calls run on ``control`` (a
/// serial queue with its own thread), never on the Swift cooperative pool, and in order: a
/// teardown queued by a failed attempt always runs before the next attempt's connect.
extension ClientCore {
    /// See ``MQTTClient/connect()``.
    func connect() async throws(MQTTError) {
        enum Start { case alreadyConnected, refused(MQTTError), attempt(UInt64) }
        let start: Start = state.withLock { state in
            switch state.phase {
            case .connected: return .alreadyConnected
            case .closed: return .refused(.shutdown)
            case .connecting, .reconnecting: return .refused(.connectInProgress)
            case .idle, .lost:
                state.attempt += 1
                state.phase = .connecting
                state.wireStarted = false
                return .attempt(state.attempt)
            }
        }
        errorLines.withLock { $0 = [] }
        let attempt: UInt64
        switch start {
        case .alreadyConnected: return
        case .refused(let error): throw error
        case .attempt(let number): attempt = number
        }
        logger.debug("connecting", metadata: ["mqtt.protocol": "\(configuration.protocolVersion)"])
        let result: Result<Void, MQTTError> = await withCheckedContinuation { continuation in
            let current = state.withLock { state in
                guard state.phase == .connecting, state.attempt == attempt else { return false }
                state.connectWaiter = continuation
                return true
            }
            guard current else {
                // disconnect() ran between the two locks.
                continuation.resume(returning: .failure(.shutdown))
                return
            }
            control.async { self.runConnect(attempt: attempt) }
            let timeout = configuration.connectTimeout
            let operation = "connect to \(configuration.host):\(configuration.port)"
            DispatchQueue.global().asyncAfter(deadline: .now() + timeout.dispatchInterval) { [weak self] in
                self?.failConnectCheckingTLS(attempt: attempt, error: .timeout(operation: operation, after: timeout))
            }
        }
        try result.get()
    }

    /// The network part of a connect attempt, on ``control``: options, the blocking
    /// `mosquitto_connect_bind_v5` (DNS, TCP, start of TLS, CONNECT sent), then the network
    /// thread. CONNACK arrives later in ``didConnect(rc:flags:properties:)``.
    private func runConnect(attempt: UInt64) {
        dispatchPrecondition(condition: .onQueue(control))
        // A connection lost for good (reconnect disabled, fatal error) leaves a stopped or
        // stopping network thread behind: join it before reusing the handle.
        if state.withLock({ $0.loopStarted }) { quiesce() }
        let proceed = state.withLock { state in
            guard state.phase == .connecting, state.attempt == attempt else { return false }
            state.wireStarted = true
            return true
        }
        guard proceed else { return }
        do {
            try applyOptions()
        } catch {
            failConnect(attempt: attempt, error: error)
            return
        }
        var properties: OpaquePointer? = nil
        defer { mosquitto_property_free_all(&properties) }
        if configuration.protocolVersion == .v5, !configuration.cleanSession {
            let seconds = configuration.sessionExpiry.wholeSeconds(ceiling: Int(UInt32.max))
            mosquitto_property_add_int32(
                &properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), UInt32(seconds))
        }
        let keepAlive = Int32(configuration.keepAlive.wholeSeconds(floor: 5, ceiling: 65_535))
        let rc = mosquitto_connect_bind_v5(
            handle, configuration.host, Int32(configuration.port), keepAlive, nil, properties)
        let code = bn_mosq_errno()  // read before anything else can touch errno
        guard rc == MOSQ_ERR_SUCCESS else {
            let error = MQTTError.connectFailure(
                rc, errno: code, host: configuration.host, port: configuration.port,
                tlsDetail: takeConnectErrors())
            failConnectCheckingTLS(attempt: attempt, error: error)
            return
        }
        let stillWanted = state.withLock { $0.phase == .connecting && $0.attempt == attempt }
        guard stillWanted else {
            // Timed out or disconnected while the call blocked: close the socket, no thread.
            mosquitto_disconnect(handle)
            return
        }
        let loopRC = mosquitto_loop_start(handle)
        guard loopRC == MOSQ_ERR_SUCCESS else {
            mosquitto_disconnect(handle)
            failConnect(attempt: attempt, error: .fromReturnCode(loopRC))
            return
        }
        state.withLock { $0.loopStarted = true }
    }

    /// Sets everything libmosquitto reads at connect time. On ``control``, network thread stopped.
    private func applyOptions() throws(MQTTError) {
        let config = configuration
        let version = config.protocolVersion == .v5 ? MQTT_PROTOCOL_V5 : MQTT_PROTOCOL_V311
        mosquitto_int_option(handle, MOSQ_OPT_PROTOCOL_VERSION, version)
        // Nagle would hold a PUBACK-awaited publish for up to 40 ms behind a delayed ACK.
        mosquitto_int_option(handle, MOSQ_OPT_TCP_NODELAY, 1)
        // v5 Receive Maximum: how many inbound QoS 1/2 messages may be unacknowledged. The
        // network thread acknowledges each as soon as it is copied, so a window does not protect
        // us; and with libmosquitto's default of 20, mosquitto 2.0.11 overruns it when QoS 1 and
        // QoS 2 deliveries mix (seen in tests), which libmosquitto treats as a protocol error and
        // drops the connection. The broker's own max_inflight_messages still bounds the window.
        mosquitto_int_option(handle, MOSQ_OPT_RECEIVE_MAXIMUM, 65_535)
        let policy = config.reconnect
        let minimum = policy.minimumDelay.wholeSeconds(floor: 1)
        let maximum = Swift.max(minimum, policy.maximumDelay.wholeSeconds(floor: 1))
        mosquitto_reconnect_delay_set(handle, UInt32(minimum), UInt32(maximum), policy.exponentialBackoff)

        let rc = mosquitto_username_pw_set(handle, config.username, config.username == nil ? nil : config.password)
        guard rc == MOSQ_ERR_SUCCESS else { throw .fromReturnCode(rc) }

        if let will = config.will {
            try Self.checkPublishTopic(will.topic)
            let rc = will.payload.withUnsafeBytes { bytes in
                mosquitto_will_set_v5(
                    handle, will.topic, Int32(bytes.count), bytes.baseAddress, Int32(will.qos.rawValue),
                    will.retain, nil)
            }
            guard rc == MOSQ_ERR_SUCCESS else {
                throw .fromReturnCode(rc, topic: will.topic, payloadSize: will.payload.count)
            }
        } else {
            mosquitto_will_clear(handle)
        }

        if let tls = config.tls {
            let rc = mosquitto_tls_set(handle, tls.caFile, nil, tls.certFile, tls.keyFile, nil)
            guard rc == MOSQ_ERR_SUCCESS else {
                let files = [tls.caFile, tls.certFile, tls.keyFile].compactMap { $0 }.joined(separator: ", ")
                throw .tlsFailure(detail: "cannot use \(files): \(Mosquitto.errorText(rc)) (unreadable file or certificate without key)")
            }
            mosquitto_tls_insecure_set(handle, tls.disableHostnameVerification)
        }
    }

    /// Ends the current attempt with `error`, if it is still the current one: resumes the
    /// caller of connect() and queues the teardown of whatever the attempt started.
    func failConnect(attempt: UInt64, error: MQTTError) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<Void, MQTTError>, Never>? in
            guard state.phase == .connecting, state.attempt == attempt else { return nil }
            state.phase = .idle
            defer { state.connectWaiter = nil }
            return state.connectWaiter
        }
        guard let waiter else { return }
        logger.warning("connect failed", metadata: ["mqtt.error": "\(error)"])
        control.async { self.quiesce() }
        waiter.resume(returning: .failure(error))
    }

    /// Stops libmosquitto's automatic reconnect (the state becomes "disconnecting"), sends a
    /// DISCONNECT if a socket is up, and joins the network thread. On ``control``.
    func quiesce() {
        dispatchPrecondition(condition: .onQueue(control))
        mosquitto_disconnect(handle)
        let started = state.withLock { state in
            defer { state.loopStarted = false }
            return state.loopStarted
        }
        if started { mosquitto_loop_stop(handle, false) }
    }

    /// The error lines libmosquitto logged since the attempt started, if any.
    func takeConnectErrors() -> String? {
        let lines = errorLines.withLock { lines in
            defer { lines = [] }
            return lines
        }
        return lines.isEmpty ? nil : lines.joined(separator: "; ")
    }

    /// What ``beginClose()`` takes out of the state, to be ended outside the lock.
    private struct Closing: Sendable {
        var connectWaiter: CheckedContinuation<Result<Void, MQTTError>, Never>?
        var subscriptions: [SubscriptionEntry]
        var listeners: [AsyncStream<MQTTConnectionEvent>.Continuation]
    }

    /// See ``MQTTClient/disconnect()``. Idempotent.
    ///
    /// Waits for the DISCONNECT and the network thread, but at most 5 s: a blocking TCP connect
    /// to a black-holed address cannot be interrupted and holds ``control`` for the kernel's SYN
    /// timeout (about two minutes). Past that the teardown finishes in the background, in order,
    /// and nothing calls into libmosquitto any more (the phase is `.closed`).
    func disconnect() async {
        guard let closing = beginClose() else { return }
        let finished = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let once = ResumeOnce(continuation)
            control.async {
                self.quiesce()
                once.resume(returning: true)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(5)) {
                once.resume(returning: false)
            }
        }
        if !finished {
            logger.warning("libmosquitto is still busy (a blocked connect?); disconnect completes in the background")
        }
        finishClose(closing)
    }

    /// Teardown when the public client is released: like disconnect(), without waiting, and
    /// ending in ``destroy()``. Queued on ``control`` after anything already there.
    func release() {
        let closing = beginClose()
        control.async {
            self.quiesce()
            if let closing { self.finishClose(closing) }
            self.destroy()
        }
    }

    /// Moves to `.closed` and takes what must be ended; `nil` if already closed.
    private func beginClose() -> Closing? {
        let closing = state.withLock { state -> Closing? in
            guard state.phase != .closed else { return nil }
            state.phase = .closed
            let closing = Closing(
                connectWaiter: state.connectWaiter,
                subscriptions: state.routing,
                listeners: Array(state.listeners.values))
            state.connectWaiter = nil
            state.subscriptions = [:]
            // Routing stays until the network thread has stopped: a QoS 1 message it reads during
            // the disconnect is already acknowledged, so the broker will not send it again, and
            // it must still reach its subscription (see finishClose).
            state.listeners = [:]
            return closing
        }
        guard let closing else { return nil }
        // A network thread paused on a full subscription must be able to read the rest and stop,
        // whether or not anyone still consumes: what arrives now is buffered without bound.
        for entry in closing.subscriptions { entry.gate?.open() }
        logger.debug("disconnecting")
        return closing
    }

    /// After the network thread is stopped: fails what still waits with `.shutdown` and ends
    /// every stream. Acknowledgements that arrived while DISCONNECT was flushed already
    /// completed their publishes, so a clean disconnect after awaited publishes fails nothing.
    private func finishClose(_ closing: Closing) {
        let pending = state.withLock { state in
            defer {
                state.pending = [:]
                state.early = [:]
                state.internalMids = []
                state.abandoned = []
                state.routing = []
            }
            return Array(state.pending.values)
        }
        closing.connectWaiter?.resume(returning: .failure(.shutdown))
        for ack in pending { ack.continuation.resume(returning: .failure(.shutdown)) }
        for entry in closing.subscriptions { entry.finish() }
        for listener in closing.listeners {
            listener.yield(.closed)
            listener.finish()
        }
        if !pending.isEmpty {
            logger.notice("disconnected with unacknowledged messages", metadata: ["mqtt.failed": "\(pending.count)"])
        } else {
            logger.debug("disconnected")
        }
    }

    /// Test hook: cuts the TCP connection under libmosquitto (no DISCONNECT), as a crash or a
    /// pulled cable would, so the broker publishes the will.
    func simulateConnectionLoss() {
        let socket = mosquitto_socket(handle)
        if socket >= 0 { shutdown(socket, Int32(SHUT_RDWR)) }
    }
}
