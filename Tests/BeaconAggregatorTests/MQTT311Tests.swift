import Foundation
import Logging
import TestSupport
import Testing
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
@testable import BeaconAggregator

/// The aggregator and a consumer speaking MQTT 3.1.1 to a real mosquitto: no message expiry, so
/// the aggregator clears an `outside` state itself, with an empty retained message, when it would
/// have expired.
@Suite("Aggregator over MQTT 3.1.1")
struct MQTT311Tests {
    static let stateTopic = "beaconnet/devices/\(Fixture.phone)/state"

    /// An aggregator whose two connections speak MQTT 3.1.1, `outside` states living `expiry` s.
    static func start(_ broker: Broker, id: String, expiry: UInt32) throws -> RunningAggregator {
        try RunningAggregator.start(broker, id: id) {
            $0.mqtt.protocolVersion = .v311
            $0.outsideStateExpiry = expiry
            $0.expirySweepInterval = .milliseconds(200)
        }
    }

    /// Waits until aggregator `id` says it is online: it says so once subscribed to the sightings,
    /// and a visit published before then would reach nobody.
    static func untilOnline(_ broker: Broker, id: String) async throws {
        let status = try await Watcher.start(broker, ["beaconnet/aggregators/\(id)/status"])
        try await status.until("\(id) online") { $0.text.contains("\"online\"") }
        await status.stop()
    }

    /// The device heard until 34 s ago, longer than any exit waits, and the gateways reporting
    /// (empty batches) until now: the device enters, and the first clock tick exits it (with the
    /// gateways silent too it would be `unknown`, not exited).
    static func visit(_ broker: Broker) async throws {
        let edge = try await LiveTraffic.client(broker)
        let start = LiveTraffic.now() - 40_000
        try await LiveTraffic.publish(edge, device: Fixture.phone, from: start, seconds: 6, levels: ["gw-a": -58])
        try await LiveTraffic.publish(edge, device: Fixture.phone, from: start + 6000, seconds: 34, levels: [:], seq: 6)
        await edge.disconnect()
    }

    /// Whether the broker holds a retained state for the device: a new 3.1.1 subscriber gets the
    /// retained messages before a marker published after its subscription.
    static func retainedState(_ broker: Broker) async throws -> MQTTMessage? {
        let late = try await Watcher.start(broker, [stateTopic, "test/marker"], version: .v311)
        let marker = try await LiveTraffic.client(broker)
        try await marker.publish(to: "test/marker", payload: Array("after".utf8), qos: .atLeastOnce, retain: false)
        try await late.until("the marker") { $0.topic == "test/marker" }
        await marker.disconnect()
        await late.stop()
        return late.messages.first { $0.topic == stateTopic }
    }

    @Test("enter, exit, and the outside state cleared by an empty retained message when it expires")
    func outsideCleared() async throws {
        try await withBroker { broker in
            let consumer = try await Watcher.start(broker, ["beaconnet/events/#", "beaconnet/devices/+/state"], version: .v311, clientID: "consumer-311")
            let aggregator = try Self.start(broker, id: "agg-v3", expiry: 2)
            try await Self.untilOnline(broker, id: "agg-v3")
            try await Self.visit(broker)
            try await consumer.until("store enter") { $0.topic == "beaconnet/events/1/enter" }
            try await consumer.until("store exit") { $0.topic == "beaconnet/events/1/exit" }
            let outside = try await consumer.until("the outside state") { $0.topic == Self.stateTopic && $0.text.contains("\"outside\"") }
            #expect(try DeviceState.decode(outside.payload).presence == .outside)
            try await consumer.until("the outside state cleared") { $0.topic == Self.stateTopic && $0.payload.isEmpty }
            #expect(try await Self.retainedState(broker) == nil, "the broker still holds a state for the device")
            try await aggregator.stop()
            await consumer.stop()
            // mosquitto logs each client's protocol: p2 is MQTT 3.1.1, p5 MQTT 5.
            for client in ["agg-v3", "agg-v3-out", "consumer-311"] {
                #expect(broker.log.contains("as \(client) (p2"), "\(client) did not connect as MQTT 3.1.1:\n\(broker.log)")
            }
        }
    }

    @Test("an outside state left by an earlier run is cleared by the next one once it expires")
    func outsideClearedAfterRestart() async throws {
        try await withBroker { broker in
            let consumer = try await Watcher.start(broker, ["beaconnet/devices/+/state"], version: .v311)
            // The first run's outside states live an hour: it stops with the state still retained.
            let first = try Self.start(broker, id: "agg-v3r", expiry: 3600)
            try await Self.untilOnline(broker, id: "agg-v3r")
            try await Self.visit(broker)
            try await consumer.until("the outside state") { $0.topic == Self.stateTopic && $0.text.contains("\"outside\"") }
            try await first.stop()
            #expect(try await Self.retainedState(broker) != nil, "the first run's outside state is not retained")
            #expect(!consumer.messages.contains { $0.payload.isEmpty }, "cleared before the restart")
            // The next run reads it back and, its expiry (1 s after the exit) long past, clears it.
            let second = try Self.start(broker, id: "agg-v3r", expiry: 1)
            try await consumer.until("the outside state cleared") { $0.topic == Self.stateTopic && $0.payload.isEmpty }
            #expect(try await Self.retainedState(broker) == nil)
            try await second.stop()
            await consumer.stop()
        }
    }
}
