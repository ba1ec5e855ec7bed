import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// Publish and subscribe against a real mosquitto: delivery at each QoS, retained messages,
/// expiry, order, pipelined publishes, overlapping subscriptions and the limits on topics and payloads.
@Suite("Publish and subscribe", .hangLimit)
struct PublishSubscribeTests {
    @Test(
        "a message round-trips at every QoS and protocol version",
        arguments: MQTTQoS.allCases, [MQTTProtocolVersion.v311, .v5])
    func roundTrip(qos: MQTTQoS, version: MQTTProtocolVersion) async throws {
        try await withBroker { broker in
            let subscriber = try await connectedClient(configuration(for: broker, clientID: "sub", protocolVersion: version))
            let publisher = try await connectedClient(configuration(for: broker, clientID: "pub", protocolVersion: version))
            let subscription = try await subscriber.subscribe(to: ["store/+/sightings"], qos: qos)
            for index in 0..<3 {
                try await publisher.publish(to: "store/\(index)/sightings", payload: "batch \(index)".bytes, qos: qos, retain: false)
            }
            let messages = try await collect(3, from: subscription)
            #expect(messages.map(\.topic) == ["store/0/sightings", "store/1/sightings", "store/2/sightings"])
            #expect(messages.map(\.payload.text) == ["batch 0", "batch 1", "batch 2"])
            #expect(messages.allSatisfy { $0.qos == qos && !$0.retain })
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }

    @Test("a retained message reaches a subscriber that comes later")
    func retainedForLateSubscriber() async throws {
        try await withBroker { broker in
            try await MQTTClient.withConnection(
                configuration: configuration(for: broker, clientID: "status"), logger: testLogger
            ) { client in
                try await client.publish(to: "gateways/gw-1/status", payload: "online".bytes, qos: .atLeastOnce, retain: true)
            }
            try await MQTTClient.withConnection(
                configuration: configuration(for: broker, clientID: "late"), logger: testLogger
            ) { client in
                let subscription = try await client.subscribe(to: ["gateways/+/status"], qos: .atLeastOnce)
                let messages = try await collect(1, from: subscription)
                #expect(messages.first?.topic == "gateways/gw-1/status")
                #expect(messages.first?.payload.text == "online")
                #expect(messages.first?.retain == true)
            }
        }
    }

    @Test("a retained message with a v5 expiry is gone for a later subscriber")
    func retainedMessageExpires() async throws {
        try await withBroker { broker in
            try await MQTTClient.withConnection(
                configuration: configuration(for: broker, clientID: "pub"), logger: testLogger
            ) { client in
                try await client.publish(
                    to: "expiry/short", payload: "soon gone".bytes, qos: .atLeastOnce, retain: true,
                    messageExpiry: .seconds(1))
                try await client.publish(to: "expiry/long", payload: "stays".bytes, qos: .atLeastOnce, retain: true)
            }
            try await Task.sleep(for: .milliseconds(2500))
            try await MQTTClient.withConnection(
                configuration: configuration(for: broker, clientID: "late"), logger: testLogger
            ) { client in
                let subscription = try await client.subscribe(to: ["expiry/#"], qos: .atLeastOnce)
                let first = try await collect(1, from: subscription)
                #expect(first.map(\.topic) == ["expiry/long"])
                let more = await nextMessage(on: subscription, within: .milliseconds(500))
                #expect(more == nil, "expired retained message was delivered: \(String(describing: more))")
            }
        }
    }

    @Test("10 000 QoS 1 messages arrive complete and in order")
    func orderPreserved() async throws {
        try await withBroker { broker in
            var subscriberConfiguration = configuration(for: broker, clientID: "aggregator")
            subscriberConfiguration.inboundBufferCapacity = 20_000
            let subscriber = try await connectedClient(subscriberConfiguration)
            let publisher = try await connectedClient(configuration(for: broker, clientID: "edge"))
            let subscription = try await subscriber.subscribe(to: ["sightings/#"], qos: .atLeastOnce)
            let count = 10_000
            let started = ContinuousClock.now
            let receiving = Task { try await collect(count, from: subscription) }
            for index in 0..<count {
                let payload = withUnsafeBytes(of: UInt32(index).bigEndian) { Array($0) }
                try await publisher.publish(to: "sightings/1/gw-a", payload: payload, qos: .atLeastOnce, retain: false)
            }
            let messages = try await receiving.value
            let elapsed = ContinuousClock.now - started
            let indices = messages.map { $0.payload.reduce(0) { $0 << 8 | Int($1) } }
            #expect(indices == Array(0..<count))
            #expect(subscription.droppedMessages == 0)
            print("10 000 acknowledged QoS 1 publishes and deliveries in \(elapsed)")
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }

    @Test("enqueued publishes go out in order with many in flight; each receipt reports its acknowledgement, also one collected late")
    func pipelinedPublishes() async throws {
        try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 0"])) { broker in
            var subscriberConfiguration = configuration(for: broker, clientID: "reader")
            subscriberConfiguration.inboundBufferCapacity = 10_000
            let subscriber = try await connectedClient(subscriberConfiguration)
            let publisher = try await connectedClient(configuration(for: broker, clientID: "writer"))
            let subscription = try await subscriber.subscribe(to: ["pipe/#"], qos: .atLeastOnce)
            let count = 3000
            let receiving = Task { try await collect(count, from: subscription) }
            var receipts: [MQTTPublishReceipt] = []
            for index in 0..<count {
                receipts.append(try publisher.enqueuePublish(to: "pipe/\(index % 7)", payload: "\(index)".bytes, qos: .atLeastOnce, retain: false))
            }
            // Every acknowledgement has long arrived by now: collected from where it was parked.
            let messages = try await receiving.value
            for receipt in receipts { try await receipt.acknowledged() }
            #expect(messages.map(\.payload.text) == (0..<count).map { "\($0)" })
            #expect(receipts.map(\.topic) == (0..<count).map { "pipe/\($0 % 7)" })
            await publisher.disconnect()
            // After the disconnect nothing can be enqueued, and the error says so at once.
            #expect(throws: MQTTError.shutdown) {
                _ = try publisher.enqueuePublish(to: "pipe/x", payload: [], qos: .atLeastOnce, retain: false)
            }
            await subscriber.disconnect()
        }
    }

    @Test(
        "overlapping subscriptions each get a message once; unsubscribing one leaves the other",
        arguments: [MQTTProtocolVersion.v311, .v5])
    func overlappingSubscriptions(version: MQTTProtocolVersion) async throws {
        try await withBroker { broker in
            let client = try await connectedClient(configuration(for: broker, clientID: "both", protocolVersion: version))
            let everything = try await client.subscribe(to: ["events/#"], qos: .atLeastOnce)
            // Two overlapping filters in one subscription, one of them shared with `everything`.
            let enters = try await client.subscribe(to: ["events/+/enter", "events/#"], qos: .atLeastOnce)
            let all = MessageCollector(everything)
            let entering = MessageCollector(enters)
            try await client.publish(to: "events/7/enter", payload: "in".bytes, qos: .atLeastOnce, retain: false)
            try await all.wait(for: 1)
            try await entering.wait(for: 1)
            try await Task.sleep(for: .milliseconds(300))  // room for a duplicate to show up
            #expect(all.messages.map(\.payload.text) == ["in"])
            #expect(entering.messages.map(\.payload.text) == ["in"])

            client.unsubscribe(everything)
            try await client.publish(to: "events/7/enter", payload: "again".bytes, qos: .atLeastOnce, retain: false)
            try await client.publish(to: "events/7/exit", payload: "out".bytes, qos: .atLeastOnce, retain: false)
            try await entering.wait(for: 3)
            try await Task.sleep(for: .milliseconds(300))
            #expect(entering.messages.map(\.payload.text) == ["in", "again", "out"])
            #expect(all.messages.map(\.payload.text) == ["in"])
            entering.stop()
            await client.disconnect()
        }
    }

    @Test("a payload larger than the broker's v5 maximum packet size is refused before sending")
    func payloadTooLarge() async throws {
        try await withBroker(BrokerConfiguration(maxPacketSize: 1024)) { broker in
            try await MQTTClient.withConnection(
                configuration: configuration(for: broker, clientID: "big"), logger: testLogger
            ) { client in
                let error = await #expect(throws: MQTTError.self) {
                    try await client.publish(
                        to: "big", payload: [UInt8](repeating: 7, count: 2000), qos: .atLeastOnce, retain: false)
                }
                #expect(error == .payloadTooLarge(size: 2000, limit: 1024))
                // The connection is still good for a message that fits.
                try await client.publish(to: "big", payload: [1, 2, 3], qos: .atLeastOnce, retain: false)
            }
        }
    }

    @Test("bad topics, bad filters and v5-only options are refused with a typed error")
    func invalidInput() async throws {
        let client = MQTTClient(
            configuration: MQTTConfiguration(port: 1, clientID: "offline", protocolVersion: .v311), logger: testLogger)
        for topic in ["", "a/+/b", "a/#"] {
            let error = await #expect(throws: MQTTError.self) {
                try await client.publish(to: topic, payload: [], qos: .atMostOnce, retain: false)
            }
            guard case .invalidTopic(let reported, _) = error else {
                Issue.record("publish to \"\(topic)\": \(String(describing: error))")
                continue
            }
            #expect(reported == topic)
        }
        for filter in ["a/#/b", "a/b+", ""] {
            let error = await #expect(throws: MQTTError.self) {
                _ = try await client.subscribe(to: [filter], qos: .atMostOnce)
            }
            guard case .invalidTopic = error else {
                Issue.record("subscribe to \"\(filter)\": \(String(describing: error))")
                continue
            }
        }
        let expiry = await #expect(throws: MQTTError.self) {
            try await client.publish(to: "a", payload: [], qos: .atMostOnce, retain: true, messageExpiry: .seconds(5))
        }
        guard case .protocolError = expiry else {
            Issue.record("message expiry with MQTT 3.1.1: \(String(describing: expiry))")
            return
        }
        await #expect(throws: MQTTError.notConnected) {
            try await client.publish(to: "a", payload: [], qos: .atMostOnce, retain: false)
        }
        await client.disconnect()
        await #expect(throws: MQTTError.shutdown) {
            try await client.publish(to: "a", payload: [], qos: .atMostOnce, retain: false)
        }
    }
}
