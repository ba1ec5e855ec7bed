public import BeaconMQTT
import BeaconCore
public import BeaconWire
public import Logging
public import ServiceLifecycle
import Synchronization

/// The edge's MQTT connection as a service: connects (and keeps trying while the broker is
/// unreachable — libmosquitto only retries connections that were once up), publishes the
/// retained `online` status after every (re)connect and every status interval, and on shutdown
/// publishes a final retained `offline` status with the last counters and disconnects cleanly.
/// The Last Will (`offline`, retained) covers every exit that is not clean.
///
/// First in the service group: it starts before the publisher needs it and stops after the
/// publisher has flushed.
public final class BrokerSession: Service, Sendable {
    /// The client, shared with the publisher.
    public let client: MQTTClient
    let gate = ConnectionGate()
    private let status: StatusReporter
    private let statusInterval: Duration
    private let logger: Logger

    /// Makes the session (nothing connects until ``run()``).
    public init(client: MQTTClient, status: StatusReporter, statusInterval: Duration, logger: Logger) {
        self.client = client
        self.status = status
        self.statusInterval = statusInterval
        self.logger = logger
    }

    /// The MQTT configuration for an edge: client id, credentials, TLS, and the `offline` will.
    public static func configuration(for config: EdgeConfig, scheme: TopicScheme) -> MQTTConfiguration {
        let will = GatewayStatus(gateway: config.gateway, state: .offline)
        return MQTTConfiguration(
            host: config.broker.host, port: config.broker.port, clientID: config.broker.clientID ?? config.gateway.rawValue,
            keepAlive: .seconds(config.broker.keepAliveSeconds), cleanSession: true,
            username: config.broker.username, password: config.broker.password,
            tls: config.broker.tls.map { MQTTTLSConfiguration(caFile: $0.caFile, certFile: $0.certFile, keyFile: $0.keyFile) },
            will: MQTTWill(topic: scheme.string(for: will.topic), payload: will.encoded(), qos: .atLeastOnce, retain: true),
            reconnect: MQTTReconnectPolicy(minimumDelay: .seconds(1), maximumDelay: .seconds(10)),
            connectTimeout: .seconds(10))
    }

    /// Connects, keeps the connection and the status up until graceful shutdown, then says goodbye.
    public func run() async throws {
        // Statuses go out one after the other from one task, so the final `offline` can never be
        // overtaken by an `online` still waiting for its acknowledgement.
        let (requests, request) = AsyncStream.makeStream(of: Availability.self, bufferingPolicy: .bufferingNewest(2))
        let statusTask = Task { [client, status, logger] in
            for await state in requests { await status.publish(on: client, state: state, logger: logger) }
        }
        let events = client.connectionEvents()
        let watcher = Task { [gate] in
            for await event in events {
                switch event {
                case .connected:
                    gate.set(connected: true)
                    request.yield(.online)
                case .lost, .closed:
                    gate.set(connected: false)
                }
            }
        }
        var backoff = Duration.seconds(1)
        var failures = 0
        var lastStatus = ContinuousClock.now
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            if !client.isConnected {
                do {
                    try await client.connect()
                    backoff = .seconds(1)
                    failures = 0
                    lastStatus = .now
                } catch .connectInProgress {
                    // libmosquitto is reconnecting by itself.
                } catch {
                    failures += 1
                    if failures.nonzeroBitCount == 1 {
                        logger.warning(
                            "broker unreachable; batches wait in the outage buffer",
                            metadata: ["mqtt.error": "\(error)", "mqtt.attempts": "\(failures)", "mqtt.retry_in": "\(backoff)"])
                    }
                    let delay = backoff
                    try? await cancelWhenGracefulShutdown { try await Task.sleep(for: delay) }
                    backoff = min(backoff * 2, .seconds(10))
                    continue
                }
            }
            if ContinuousClock.now - lastStatus >= statusInterval {
                lastStatus = .now
                if gate.isConnected { request.yield(.online) }
            }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: .milliseconds(250)) }
        }
        // The final word, after any status still queued: offline with the last counters, retained.
        if client.isConnected { request.yield(.offline) }
        request.finish()
        if !(await Race.first(within: .seconds(3), { await statusTask.value })) {
            logger.warning("final status not acknowledged within 3 s")
        }
        gate.close()
        await client.disconnect()
        watcher.cancel()
        logger.info("disconnected from the broker")
    }
}
