public import BeaconCore
public import BeaconMQTT
public import BeaconWire
import Foundation
public import Logging

/// Builds the gateway's ``GatewayStatus`` from the live counters and publishes it, retained, at
/// `<root>/gateways/<gw>/status`.
public struct StatusReporter: Sendable {
    /// The software version reported (`version`).
    public static let version = "0.1.0"

    /// The gateway.
    public let gateway: GatewayID
    /// Where it is installed.
    public let section: SectionRef
    /// The source in use: the adapter (`hci0`) or `replay:<file name>`.
    public let adapter: String
    /// The counters reported.
    public let counters: EdgeCounters
    /// The buffer whose length is reported as `buffered`.
    public let buffer: OutageBuffer
    /// The topic string.
    public let topic: String

    /// Makes a reporter.
    public init(
        gateway: GatewayID, section: SectionRef, adapter: String, counters: EdgeCounters, buffer: OutageBuffer,
        scheme: TopicScheme
    ) {
        self.gateway = gateway
        self.section = section
        self.adapter = String(adapter.utf8.prefix(64)) ?? "replay"
        self.counters = counters
        self.buffer = buffer
        self.topic = scheme.string(for: .gatewayStatus(gateway))
    }

    /// The status now.
    public func snapshot(state: Availability, time: Int64? = nil) -> GatewayStatus {
        GatewayStatus(
            gateway: gateway, state: state, version: Self.version, section: section, adapter: adapter,
            time: time ?? Int64(Date().timeIntervalSince1970 * 1000),
            counters: GatewayStatus.Counters(
                reports: counters.reports.load(ordering: .relaxed),
                published: counters.published.load(ordering: .relaxed),
                dropped: counters.dropped.load(ordering: .relaxed),
                malformed: counters.malformed.load(ordering: .relaxed),
                filtered: counters.filtered.load(ordering: .relaxed),
                buffered: UInt64(buffer.count)))
    }

    /// Publishes the status (QoS 1, retained); failures are logged, never thrown.
    public func publish(on client: MQTTClient, state: Availability, logger: Logger) async {
        let status = snapshot(state: state)
        do {
            try await client.publish(to: topic, payload: status.encoded(), qos: .atLeastOnce, retain: true)
            logger.debug("status published", metadata: ["gateway.state": "\(state.rawValue)"])
        } catch {
            logger.debug("status not published", metadata: ["mqtt.error": "\(error)"])
        }
    }
}
