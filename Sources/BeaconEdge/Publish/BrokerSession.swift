public import BeaconMQTT
import BeaconCore
public import BeaconWire
public import Logging
public import ServiceLifecycle

/// The edge's MQTT connection as a service: connects, publishes the retained `online` status
/// after every (re)connect and every status interval, and on shutdown publishes a final retained
/// `offline` status with the last counters and disconnects cleanly. The Last Will (`offline`,
/// retained) covers every exit that is not clean.
///
/// Who reconnects: libmosquitto, for a connection that was up (``MQTTReconnectPolicy``, 1–10 s).
/// This session only makes connections libmosquitto does not: the first one, and one it gave up
/// on (a TLS failure while reconnecting) — both with ``MQTTConnectBackoff``, woken by the client's
/// connection events, never by polling. A broker port that answers with TLS while the edge speaks
/// plain MQTT ends the session with ``MQTTError/tlsRequired(host:port:)`` after a few attempts.
///
/// First in the service group: it starts before the publisher needs it and stops after the
/// publisher has flushed.
public final class BrokerSession: Service, Sendable {
    /// The client, shared with the publisher.
    public let client: MQTTClient
    private let status: StatusReporter
    private let statusInterval: Duration
    private let logger: Logger

    /// How long shutdown waits for the broker to acknowledge the final `offline` status.
    static let finalStatusTimeout = Duration.seconds(3)

    /// Makes the session (nothing connects until ``run()``).
    public init(client: MQTTClient, status: StatusReporter, statusInterval: Duration, logger: Logger) {
        self.client = client
        self.status = status
        self.statusInterval = statusInterval
        self.logger = logger
    }

    /// The MQTT configuration for an edge: client id, credentials, TLS, MQTT version, and the
    /// `offline` will.
    public static func configuration(for config: EdgeConfig, scheme: TopicScheme) -> MQTTConfiguration {
        let will = GatewayStatus(gateway: config.gateway, state: .offline)
        return MQTTConfiguration(
            host: config.broker.host, port: config.broker.port, clientID: config.broker.clientID ?? config.gateway.rawValue,
            keepAlive: .seconds(config.broker.keepAliveSeconds), cleanSession: true,
            username: config.broker.username, password: config.broker.password,
            tls: config.broker.tls.map { MQTTTLSConfiguration(caFile: $0.caFile, certFile: $0.certFile, keyFile: $0.keyFile) },
            will: MQTTWill(topic: scheme.string(for: will.topic), payload: will.encoded(), qos: .atLeastOnce, retain: true),
            protocolVersion: config.broker.mqttVersion == .v311 ? .v311 : .v5,
            reconnect: MQTTReconnectPolicy(minimumDelay: .seconds(1), maximumDelay: .seconds(10)),
            connectTimeout: .seconds(10))
    }

    /// Connects, keeps the connection and the status up until graceful shutdown, then says goodbye.
    /// - Throws: ``MQTTError/tlsRequired(host:port:)`` when the broker's port speaks TLS and the
    ///   edge has no CA for it; the session disconnects before throwing.
    public func run() async throws {
        // Statuses go out one after the other from one child task, so the final `offline` can
        // never be overtaken by an `online` still waiting for its acknowledgement.
        let (requests, request) = AsyncStream.makeStream(of: Availability.self, bufferingPolicy: .bufferingNewest(2))
        // Made before the first connect, so that its `.connected` is seen.
        let events = client.connectionEvents()
        var failure: (any Error)?
        await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                for await state in requests { await self.status.publish(on: self.client, state: state, logger: self.logger) }
                return .statusesSent
            }
            do {
                try await cancelWhenGracefulShutdown {
                    try await withThrowingDiscardingTaskGroup { live in
                        live.addTask { try await self.follow(events, requesting: request) }
                        live.addTask { await self.repeatStatus(requesting: request) }
                    }
                }
            } catch is CancellationError {
            } catch {
                failure = error
            }
            // The final word, after any status still queued: offline with the last counters, retained.
            if client.isConnected { request.yield(.offline) }
            request.finish()
            group.addTask {
                try? await Task.sleep(for: Self.finalStatusTimeout)
                return .timedOut
            }
            if await group.next() == .timedOut {
                logger.warning("final status not acknowledged within \(Self.finalStatusTimeout)")
            }
            // The loser ends: a status still waiting for its acknowledgement, or the timer.
            group.cancelAll()
        }
        await client.disconnect()
        logger.info("disconnected from the broker")
        if let failure { throw failure }
    }

    /// Which child of ``run()`` ended first at shutdown.
    private enum Outcome: Sendable { case statusesSent, timedOut }

    /// Connects, then follows the connection until the client closes: asks for `online` after
    /// every (re)connect, and connects again when libmosquitto has given up.
    private func follow(_ events: AsyncStream<MQTTConnectionEvent>, requesting request: AsyncStream<Availability>.Continuation) async throws {
        try await connect()
        for await event in events {
            switch event {
            case .connected:
                request.yield(.online)
            case .lost:
                try await connect()
            case .closed:
                return
            }
        }
    }

    /// Connects, unless connected or libmosquitto is already reconnecting by itself; retries
    /// with ``MQTTConnectBackoff`` while the broker cannot be reached (batches wait in the
    /// outage buffer meanwhile).
    private func connect() async throws {
        var backoff = MQTTConnectBackoff(maximumDelay: .seconds(10))
        while true {
            do {
                try await client.connect()
                return
            } catch .connectInProgress, .shutdown {
                // libmosquitto's reconnect is under way (its `.connected` will come), or the
                // session is closing.
                return
            } catch {
                guard let delay = backoff.delay(after: error) else { throw error }
                if case .tlsRequired = error {
                    logger.error("the broker's port speaks TLS: give the edge its CA (--tls-ca, broker.tls.ca_file)", metadata: ["mqtt.error": "\(error)"])
                } else if backoff.failures.nonzeroBitCount == 1 {  // 1, 2, 4, 8, … attempts
                    logger.warning(
                        "broker unreachable; batches wait in the outage buffer",
                        metadata: ["mqtt.error": "\(error)", "mqtt.attempts": "\(backoff.failures)", "mqtt.retry_in": "\(delay)"])
                }
                try await Task.sleep(for: delay)
            }
        }
    }

    /// Asks for `online` every status interval while connected, until cancelled.
    private func repeatStatus(requesting request: AsyncStream<Availability>.Continuation) async {
        while (try? await Task.sleep(for: statusInterval)) != nil {
            if client.isConnected { request.yield(.online) }
        }
    }
}
