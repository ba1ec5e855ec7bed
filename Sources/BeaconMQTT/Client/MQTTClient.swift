public import Logging

/// An MQTT client over libmosquitto: connect (TCP or TLS, user name and password, Last Will),
/// publish with acknowledgement, subscribe as an `AsyncSequence`, automatic reconnect with
/// back-off and re-subscription.
///
/// libmosquitto runs its own network thread (`mosquitto_loop_start`) that does all socket
/// work, keep-alive and reconnects; the methods here queue packets for it and wait for its
/// callbacks without blocking the Swift cooperative pool. Safe to use from any number of tasks.
///
/// Prefer ``withConnection(configuration:logger:isolation:_:)``, which always disconnects.
/// A client that is released without ``disconnect()`` still disconnects and frees its
/// resources in the background.
public final class MQTTClient: Sendable {
    /// What this client was made with.
    public let configuration: MQTTConfiguration
    /// The client identifier in use (``MQTTConfiguration/clientID``, or the generated one).
    public var clientID: String { core.clientID }

    let core: ClientCore

    /// Makes a client; nothing touches the network until ``connect()``.
    /// - Parameters:
    ///   - configuration: broker, identity, TLS, will, reconnect and buffering settings.
    ///   - logger: this component's logger; the client adds `mqtt.client_id` and `mqtt.broker`.
    public init(configuration: MQTTConfiguration, logger: Logger) {
        self.configuration = configuration
        self.core = ClientCore(configuration: configuration, logger: logger)
        core.attach()
    }

    deinit {
        core.release()
    }

    /// Connects and returns once the broker accepted the CONNECT (CONNACK success).
    ///
    /// The first connection is not retried: an unreachable broker, a refusal or a TLS failure
    /// throws, and the client can be connected again later. Once connected, a lost connection
    /// is re-established by libmosquitto (``MQTTConfiguration/reconnect``). Returns at once if
    /// already connected.
    ///
    /// A plain connection that the broker drops (or leaves unanswered) before CONNACK is
    /// followed by a TLS handshake offered to the same port: one answered means the port is a
    /// TLS listener, thrown as ``MQTTError/tlsRequired(host:port:)`` at once.
    /// - Throws: ``MQTTError/hostUnreachable(host:port:errno:reason:)``,
    ///   ``MQTTError/notAuthorized(reason:)``, ``MQTTError/connectionRefused(reasonCode:reason:)``,
    ///   ``MQTTError/tlsFailure(detail:)``, ``MQTTError/tlsRequired(host:port:)``,
    ///   ``MQTTError/timeout(operation:after:)``,
    ///   ``MQTTError/connectInProgress``, ``MQTTError/shutdown``.
    public func connect() async throws(MQTTError) {
        try await core.connect()
    }

    /// Sends DISCONNECT (so the broker does not publish the will), stops the network thread,
    /// fails publishes still waiting for an acknowledgement with ``MQTTError/shutdown``, and ends
    /// every subscription and event stream. The client cannot be connected again. Idempotent.
    public func disconnect() async {
        await core.disconnect()
    }

    /// Whether the client has an accepted connection right now.
    public var isConnected: Bool {
        core.state.withLock { $0.phase == .connected }
    }

    /// A new stream of connection state changes: `.connected` after every successful
    /// (re)connect, `.lost` when an established connection drops, `.closed` at the end.
    /// Each call returns an independent stream that sees events from now on (read
    /// ``isConnected`` for the current state); it keeps the newest 64 unread events.
    public func connectionEvents() -> AsyncStream<MQTTConnectionEvent> {
        core.addListener()
    }

    /// Returns `true` once the client is connected — at once if it is, else at the next
    /// ``MQTTConnectionEvent/connected(sessionPresent:)`` — and `false` when the client is
    /// closed or the calling task is cancelled first. An event, not a poll: publishers wait here
    /// through an outage while libmosquitto reconnects.
    public func waitUntilConnected() async -> Bool {
        // The stream first, then the state: a change in between is in the stream.
        let events = connectionEvents()
        switch core.state.withLock({ $0.phase }) {
        case .connected: return true
        case .closed: return false
        default: break
        }
        for await event in events {
            switch event {
            case .connected: return true
            case .closed: return false
            case .lost: continue
            }
        }
        return false
    }

    /// Connects, runs `body` with the client, and always disconnects, whether `body` returns
    /// or throws. The scoped way to use a client.
    public static func withConnection<T>(
        configuration: MQTTConfiguration,
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (MQTTClient) async throws -> T
    ) async throws -> T {
        let client = MQTTClient(configuration: configuration, logger: logger)
        do {
            try await client.connect()
            let result = try await body(client)
            await client.disconnect()
            return result
        } catch {
            await client.disconnect()
            throw error
        }
    }

    /// Test hook: cuts the TCP connection without a DISCONNECT, like a crash or a pulled cable
    /// (the broker then publishes the will). `package` so that only this package's tests see it.
    package func simulateConnectionLoss() {
        core.simulateConnectionLoss()
    }
}
