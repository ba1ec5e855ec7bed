import BeaconMQTT
import Logging

/// Publishes a simulation's batches to a broker that may restart mid-run, as beacon-edge and
/// beacon-aggregator ride out a broker restart. libmosquitto reconnects by itself and resends what
/// it had in flight; a publish refused because the connection is down at that moment waits for
/// it to come back and is sent then, so batches still go out in order and none is skipped.
struct ReconnectingPublisher {
    /// The connection.
    let client: MQTTClient
    private let logger: Logger

    /// CONNACK codes that say "not now" rather than "not you": MQTT 3.1.1's server unavailable (3)
    /// and MQTT 5's server unavailable (0x88) and server busy (0x89) — a broker starting or
    /// overloaded, as the aggregator also waits out.
    static let transientRefusals: Set<Int> = [3, 0x88, 0x89]

    /// Connects to the broker `configuration` names, retrying with back-off (1 s, doubling, at
    /// most 30 s) while it is unreachable or not taking clients yet; a refusal of this client
    /// (credentials, client id, TLS) is thrown at once.
    static func connect(_ configuration: MQTTConfiguration, logger: Logger) async throws -> ReconnectingPublisher {
        let client = MQTTClient(configuration: configuration, logger: logger)
        var delay = Duration.seconds(1)
        while true {
            do {
                try await client.connect()
                return ReconnectingPublisher(client: client, logger: logger)
            } catch {
                switch error {
                case .connectionRefused(let code, _) where Self.transientRefusals.contains(code):
                    logger.warning("the broker at \(configuration.host):\(configuration.port) is not taking clients yet, retrying in \(delay): \(error)")
                case .notAuthorized, .tlsFailure, .connectionRefused, .shutdown:
                    throw error
                default:
                    logger.warning("cannot connect to \(configuration.host):\(configuration.port), retrying in \(delay): \(error)")
                }
            }
            try await Task.sleep(for: delay)
            delay = min(delay * 2, .seconds(30))
        }
    }

    /// Publishes with QoS 1 (as beacon-edge does: brokers and bridges queue it for an aggregator
    /// that is away), waiting through a lost connection.
    func publish(to topic: String, payload: [UInt8]) async throws {
        while true {
            do {
                try await client.publish(to: topic, payload: payload, qos: .atLeastOnce, retain: false)
                return
            } catch .notConnected {
                try await waitForConnection()
            }
        }
    }

    /// Returns once the client is connected again (libmosquitto retries on its own).
    private func waitForConnection() async throws {
        let events = client.connectionEvents()
        guard !client.isConnected else { return }
        logger.warning("lost the broker; publishing resumes when it is back")
        for await event in events {
            switch event {
            case .connected:
                logger.notice("broker back; publishing resumes")
                return
            case .closed:
                throw MQTTError.shutdown
            case .lost:
                continue
            }
        }
        throw MQTTError.shutdown
    }

    /// Disconnects.
    func disconnect() async { await client.disconnect() }
}
