import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// Persistent sessions against a real mosquitto: what the broker queues for a session while its
/// client is away, and the subscriptions a client declares before it connects.
@Suite("Persistent sessions", .hangLimit)
struct PersistentSessionTests {
    @Test("a persistent session resumed by a new client with a declared subscription delivers everything queued meanwhile",
          arguments: [MQTTProtocolVersion.v311, .v5])
    func persistentSessionQueue(version: MQTTProtocolVersion) async throws {
        try await withBroker { broker in
            var durable = configuration(for: broker, clientID: "durable-agg", protocolVersion: version)
            durable.cleanSession = false
            // Different filter order from the second client: its subscription identifiers differ.
            let first = MQTTClient(configuration: durable, logger: testLogger)
            let early = try first.declareSubscription(to: ["other/#", "queue/+/in"], qos: .atLeastOnce)
            try await first.connect()
            let publisher = try await connectedClient(configuration(for: broker, clientID: "pub-q", protocolVersion: version))
            try await publisher.publish(to: "queue/1/in", payload: "0".bytes, qos: .atLeastOnce, retain: false)
            #expect(try await collect(1, from: early).map(\.payload.text) == ["0"])
            first.simulateConnectionLoss()  // a crash: no DISCONNECT, the session stays
            await first.disconnect()
            for index in 1...300 {
                try await publisher.publish(to: "queue/\(index % 3)/in", payload: "\(index)".bytes, qos: .atLeastOnce, retain: false)
            }
            let second = MQTTClient(configuration: durable, logger: testLogger)
            let resumed = try second.declareSubscription(to: ["queue/+/in"], qos: .atLeastOnce)
            try await second.connect()
            let messages = try await collect(300, from: resumed)
            #expect(messages.map(\.payload.text) == (1...300).map { "\($0)" })
            // The declared subscription was sent again and keeps working after the queue.
            try await publisher.publish(to: "queue/2/in", payload: "live".bytes, qos: .atLeastOnce, retain: false)
            #expect(try await collect(1, from: resumed).map(\.payload.text) == ["live"])
            await second.disconnect()
            await publisher.disconnect()
        }
    }

    @Test("disconnecting in the middle of a QoS 1 stream loses nothing: the old session's messages and the resumed session's are every message")
    func disconnectMidStream() async throws {
        // No queue limit: the test is about the client, not about the broker dropping a backlog.
        try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 0"])) { broker in
            var durable = configuration(for: broker, clientID: "durable-mid")
            durable.cleanSession = false
            let first = MQTTClient(configuration: durable, logger: testLogger)
            let taken = try first.declareSubscription(to: ["mid/#"], qos: .atLeastOnce)
            try await first.connect()
            // Four publishers keep the stream dense, so messages are in flight as it disconnects.
            var publishers: [MQTTClient] = []
            for lane in 0..<4 { publishers.append(try await connectedClient(configuration(for: broker, clientID: "pub-mid-\(lane)"))) }
            let total = 6000
            let publishing = Task { [publishers] in
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (lane, publisher) in publishers.enumerated() {
                        group.addTask {
                            for index in stride(from: lane, to: total, by: publishers.count) {
                                try await publisher.publish(to: "mid/\(lane)", payload: "\(index)".bytes, qos: .atLeastOnce, retain: false)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
            }
            // Part of the stream, then a disconnect while it still flows. The broker has the
            // acknowledged messages off its books, so each must reach this subscription.
            var seen = Set(try await collect(300, from: taken).map(\.payload.text))
            await first.disconnect()
            for await message in taken { seen.insert(message.payload.text) }
            try await publishing.value
            // The rest waited at the broker for the session.
            let second = MQTTClient(configuration: durable, logger: testLogger)
            let resumed = try second.declareSubscription(to: ["mid/#"], qos: .atLeastOnce)
            try await second.connect()
            let before = seen
            let all = try await withTimeout(readinessLimit, "the resumed session completing the stream") {
                var seen = before
                for await message in resumed {
                    seen.insert(message.payload.text)
                    if seen.count == total { break }
                }
                return seen
            }
            #expect(all == Set((0..<total).map { "\($0)" }))
            await second.disconnect()
            for publisher in publishers { await publisher.disconnect() }
        }
    }

    @Test("a cancelled consumer of a persistent session leaves the subscription at the broker; unsubscribe removes it")
    func cancelledConsumerKeepsSession() async throws {
        try await withBroker { broker in
            var durable = configuration(for: broker, clientID: "durable-keep")
            durable.cleanSession = false
            let publisher = try await connectedClient(configuration(for: broker, clientID: "pub-keep"))

            let first = MQTTClient(configuration: durable, logger: testLogger)
            let cancelled = try first.declareSubscription(to: ["keep/#"], qos: .atLeastOnce)
            try await first.connect()
            let consumer = Task { for await _ in cancelled {} }
            try await Task.sleep(for: .milliseconds(100))
            consumer.cancel()  // a shutdown
            await consumer.value
            try await Task.sleep(for: .milliseconds(200))  // an UNSUBSCRIBE, had one been sent, is through
            await first.disconnect()
            try await publisher.publish(to: "keep/a", payload: "while away".bytes, qos: .atLeastOnce, retain: false)

            let second = MQTTClient(configuration: durable, logger: testLogger)
            let resumed = try second.declareSubscription(to: ["keep/#"], qos: .atLeastOnce)
            try await second.connect()
            #expect(try await collect(1, from: resumed).map(\.payload.text) == ["while away"])
            second.unsubscribe(resumed)
            try await Task.sleep(for: .milliseconds(200))
            await second.disconnect()
            try await publisher.publish(to: "keep/b", payload: "after unsubscribe".bytes, qos: .atLeastOnce, retain: false)

            let third = MQTTClient(configuration: durable, logger: testLogger)
            let last = try third.declareSubscription(to: ["keep/#"], qos: .atLeastOnce)
            try await third.connect()
            let stray = try? await collect(1, from: last, within: .seconds(1))
            #expect(stray == nil, "an explicit unsubscribe must end the broker-side subscription")
            await third.disconnect()
            await publisher.disconnect()
        }
    }

    @Test("declaring a subscription is refused once connect has been called")
    func declareAfterConnect() async throws {
        try await withBroker { broker in
            let client = try await connectedClient(configuration(for: broker, clientID: "late-declare"))
            #expect(throws: MQTTError.connectInProgress) { _ = try client.declareSubscription(to: ["a/b"], qos: .atLeastOnce) }
            #expect(throws: MQTTError.self) { _ = try client.declareSubscription(to: ["a/#/b"], qos: .atLeastOnce) }
            await client.disconnect()
            #expect(throws: MQTTError.shutdown) { _ = try client.declareSubscription(to: ["a/b"], qos: .atLeastOnce) }
        }
    }
}
