import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import TestSupport

/// Edges as the aggregator sees them: batches published live, at the wall clock.
enum LiveTraffic {
    static let packageRoot = TestPaths.packageRoot

    static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    static func client(_ broker: Broker) async throws -> MQTTClient {
        let client = MQTTClient(configuration: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "edge-sim-\(UInt32.random(in: 0...UInt32.max))"),
                                logger: Logger(label: "test.edge"))
        try await client.connect()
        return client
    }

    /// `seconds` one-second batches from every gateway of store 1, starting at event time `from`;
    /// the gateways in `levels` hear `device` four times a second.
    static func publish(_ client: MQTTClient, device: DeviceID, from: Int64, seconds: Int, levels: [String: Int], seq: UInt64 = 0) async throws {
        for second in 0..<seconds {
            for gw in ["gw-a", "gw-b", "gw-b2", "gw-c"] {
                let start = from + Int64(second) * 1000
                let sightings = levels[gw].map { level in
                    (0..<4).map { Sighting(device: device, time: start + Int64($0) * 250, rssi: level, txPower: -59) }
                } ?? []
                let batch = SightingBatch(gateway: try GatewayID(gw), sequence: seq + UInt64(second), sent: start + 1000, sightings: sightings)
                try await client.publish(to: "beaconnet/sightings/1/\(gw)", payload: batch.encoded(), qos: .atLeastOnce, retain: false)
            }
        }
    }
}
