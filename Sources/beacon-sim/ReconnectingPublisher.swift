import BeaconMQTT
import Logging

/// Publishes a simulation's batches to a broker that may restart mid-run, as beacon-edge and
/// beacon-aggregator ride out a broker restart. libmosquitto reconnects by itself and resends what
/// it had in flight; a publish refused because the connection is down at that moment waits for
/// the client's next `.connected` and is sent then, so batches still go out in order and none is
/// skipped.
struct ReconnectingPublisher {
    /// The connection.
    let client: MQTTClient
    private let logger: Logger

    /// CONNACK codes that say "not now" rather than "not you": MQTT 3.1.1's server unavailable (3)
    /// and MQTT 5's server unavailable (0x88) and server busy (0x89) — a broker starting or
    /// overloaded, as the aggregator also waits out.
    static let transientRefusals: Set<Int> = [3, 0x88, 0x89]

    /// Connects to the broker `configuration` names, retrying with ``MQTTConnectBackoff`` while it
    /// is unreachable or not taking clients yet; a refusal of this client (credentials, client id,
    /// TLS) is thrown at once, a port that answers with TLS after a few attempts.
    static func connect(_ configuration: MQTTConfiguration, logger: Logger) async throws -> ReconnectingPublisher {
        let client = MQTTClient(configuration: configuration, logger: logger)
        var backoff = MQTTConnectBackoff()
        while true {
            do {
                try await client.connect()
                return ReconnectingPublisher(client: client, logger: logger)
            } catch {
                switch error {
                case .connectionRefused(let code, _) where Self.transientRefusals.contains(code):
                    break
                case .notAuthorized, .tlsFailure, .connectionRefused, .shutdown:
                    throw error
                default:
                    break
                }
                guard let delay = backoff.delay(after: error) else { throw error }
                logger.warning("cannot connect to \(configuration.host):\(configuration.port), retrying in \(delay): \(error)")
                try await Task.sleep(for: delay)
            }
        }
    }

    /// Publishes with QoS 1 (as beacon-edge does: brokers and bridges queue it for an aggregator
    /// that is away), retained if `retain` (a gateway's status), waiting through a lost connection.
    func publish(to topic: String, payload: [UInt8], retain: Bool = false) async throws {
        while true {
            do {
                try await client.publish(to: topic, payload: payload, qos: .atLeastOnce, retain: retain)
                return
            } catch .notConnected {
                logger.warning("lost the broker; publishing resumes when it is back")
                guard await client.waitUntilConnected() else { throw MQTTError.shutdown }
                logger.notice("broker back; publishing resumes")
            }
        }
    }

    /// Disconnects.
    func disconnect() async { await client.disconnect() }
}
