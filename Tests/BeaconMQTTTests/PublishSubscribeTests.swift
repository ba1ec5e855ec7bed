import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// Publish and subscribe against a real mosquitto: delivery at each QoS, retained messages,
/// expiry, order, bounded buffering and the limits on topics and payloads.
@Suite("Publish and subscribe", .timeLimit(.minutes(2)))
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
            let all = try await withTimeout(.seconds(20), "the resumed session completing the stream") {
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
            let receiving = Task { try await collect(count, from: subscription, within: .seconds(60)) }
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
            let receiving = Task { try await collect(count, from: subscription, within: .seconds(60)) }
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

    @Test("a slow consumer loses the oldest messages, counted, and keeps the newest")
    func slowConsumerDropsOldest() async throws {
        try await withBroker { broker in
            var subscriberConfiguration = configuration(for: broker, clientID: "slow")
            subscriberConfiguration.inboundBufferCapacity = 10
            let subscriber = try await connectedClient(subscriberConfiguration)
            let publisher = try await connectedClient(configuration(for: broker, clientID: "fast"))
            let subscription = try await subscriber.subscribe(to: ["flood"], qos: .atLeastOnce)
            for index in 0..<100 {
                try await publisher.publish(to: "flood", payload: "\(index)".bytes, qos: .atLeastOnce, retain: false)
            }
            let deadline = ContinuousClock.now + .seconds(10)
            while subscription.droppedMessages < 90, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(subscription.droppedMessages == 90)
            let kept = try await collect(10, from: subscription)
            #expect(kept.map(\.payload.text) == (90..<100).map { "\($0)" })
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }

    @Test("pauseReading: a slow consumer loses nothing; the client holds its capacity and the broker queues the rest")
    func slowConsumerPausesReading() async throws {
        try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 0"])) { broker in
            let (subscriber, publisher) = try await Self.pausedClients(broker, capacity: 10)
            let subscription = try await subscriber.subscribe(to: ["flood"], qos: .atLeastOnce)
            try await Self.flood(publisher, 300)
            // Nobody has read yet: the network thread fills the buffer and waits there.
            try await Self.waitUntilHolding(10, subscription)
            try await Task.sleep(for: .milliseconds(300))
            #expect(subscription.waitingMessages == 10)
            let all = try await collect(300, from: subscription)
            #expect(all.map(\.payload.text) == (0..<300).map { "\($0)" })
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }

    @Test("pauseReading: disconnecting while the network thread waits on a full buffer ends promptly and keeps what was read")
    func disconnectWhilePaused() async throws {
        try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 0"])) { broker in
            let (subscriber, publisher) = try await Self.pausedClients(broker, capacity: 5)
            let subscription = try await subscriber.subscribe(to: ["flood"], qos: .atLeastOnce)
            try await Self.flood(publisher, 50)
            try await Self.waitUntilHolding(5, subscription)
            #expect(subscription.waitingMessages == 5)
            // The consumer is not reading; the disconnect must not wait for it (it would take the
            // 5 s fallback if the paused thread could not stop).
            let started = ContinuousClock.now
            await subscriber.disconnect()
            #expect(ContinuousClock.now - started < .seconds(3))
            let kept = try await withTimeout(.seconds(5), "draining the ended subscription") {
                var texts: [String] = []
                for await message in subscription { texts.append(message.payload.text) }
                return texts
            }
            #expect(kept.count >= 5)
            #expect(kept == (0..<kept.count).map { "\($0)" })
            await publisher.disconnect()
        }
    }

    /// A connected pauseReading subscriber with room for `capacity` messages, and a publisher.
    static func pausedClients(_ broker: Broker, capacity: Int) async throws -> (subscriber: MQTTClient, publisher: MQTTClient) {
        var subscriberConfiguration = configuration(for: broker, clientID: "paused")
        subscriberConfiguration.inboundBufferCapacity = capacity
        subscriberConfiguration.inboundOverflow = .pauseReading
        return (try await connectedClient(subscriberConfiguration), try await connectedClient(configuration(for: broker, clientID: "fast")))
    }

    /// Publishes "0" … "count − 1" to `flood`, QoS 1.
    static func flood(_ publisher: MQTTClient, _ count: Int) async throws {
        for index in 0..<count {
            try await publisher.publish(to: "flood", payload: "\(index)".bytes, qos: .atLeastOnce, retain: false)
        }
    }

    /// Waits (at most 5 s) until `subscription` holds `count` messages nobody has taken.
    static func waitUntilHolding(_ count: Int, _ subscription: MQTTSubscription) async throws {
        let deadline = ContinuousClock.now + .seconds(5)
        while (subscription.waitingMessages ?? 0) < count, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    /// How a pauseReading subscription's consumer goes away.
    enum ConsumerGone: String, CaseIterable, Sendable {
        case unsubscribed, breaksOutKeepingTheSubscription, taskCancelled, subscriptionDropped
    }

    @Test("pauseReading: a consumer that goes away while the thread waits does not stall the client's other subscriptions",
          arguments: ConsumerGone.allCases)
    func endedConsumerReleasesThread(_ how: ConsumerGone) async throws {
        try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 0"])) { broker in
            let (subscriber, publisher) = try await Self.pausedClients(broker, capacity: 5)
            var flood: MQTTSubscription? = try await subscriber.subscribe(to: ["flood"], qos: .atLeastOnce)
            let other = try await subscriber.subscribe(to: ["other"], qos: .atLeastOnce)
            var consumer: Task<Void, Never>?
            switch how {
            case .breaksOutKeepingTheSubscription:
                // The loop ends (for await … break) while the subscription value is still held.
                try await publisher.publish(to: "flood", payload: "first".bytes, qos: .atLeastOnce, retain: false)
                _ = try await collect(1, from: flood!)
            case .taskCancelled:
                // A consumer busy with its first message when its task is cancelled. It must hold
                // that message before the flood, or it could take one from the full buffer after
                // the count below was read.
                let subscription = flood!
                let (busy, signal) = AsyncStream<Void>.makeStream()
                consumer = Task {
                    for await _ in subscription {
                        signal.yield()
                        try? await Task.sleep(for: .seconds(60))
                    }
                }
                try await publisher.publish(to: "flood", payload: "first".bytes, qos: .atLeastOnce, retain: false)
                var iterator = busy.makeAsyncIterator()
                _ = await iterator.next()
            default:
                break
            }
            try await Self.flood(publisher, 50)
            if how != .breaksOutKeepingTheSubscription {
                // The network thread waits on the full buffer.
                try await Self.waitUntilHolding(5, flood!)
                #expect(flood!.waitingMessages == 5)
            }
            switch how {
            case .unsubscribed: subscriber.unsubscribe(flood!)
            case .taskCancelled: consumer?.cancel()
            case .subscriptionDropped: flood = nil
            case .breaksOutKeepingTheSubscription: break
            }
            try await publisher.publish(to: "other", payload: "still here".bytes, qos: .atLeastOnce, retain: false)
            let message = await nextMessage(on: other, within: .seconds(5))
            #expect(message?.payload.text == "still here")
            _ = flood?.filters  // held to here
            await consumer?.value
            await publisher.disconnect()
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
            try await all.wait(for: 1, within: .seconds(5))
            try await entering.wait(for: 1, within: .seconds(5))
            try await Task.sleep(for: .milliseconds(300))  // room for a duplicate to show up
            #expect(all.messages.map(\.payload.text) == ["in"])
            #expect(entering.messages.map(\.payload.text) == ["in"])

            client.unsubscribe(everything)
            try await client.publish(to: "events/7/enter", payload: "again".bytes, qos: .atLeastOnce, retain: false)
            try await client.publish(to: "events/7/exit", payload: "out".bytes, qos: .atLeastOnce, retain: false)
            try await entering.wait(for: 3, within: .seconds(5))
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
