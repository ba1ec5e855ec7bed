import BeaconMQTT
import BrokerHarness
import Foundation
import Logging
import TestSupport
import Testing

/// A consumer slower than the broker: a bounded buffer that drops the oldest messages, counted, or
/// (pauseReading) a client that stops reading and lets the broker queue the rest.
@Suite("Slow consumers", .hangLimit)
struct SlowConsumerTests {
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
            try await pollUntil("90 dropped messages", explain: { "\(subscription.droppedMessages) dropped" }) {
                subscription.droppedMessages >= 90
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

    @Test("pauseReading: disconnecting while the network thread waits on a full buffer stops that thread and keeps what was read")
    func disconnectWhilePaused() async throws {
        try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 0"])) { broker in
            let log = LogCapture()
            let (subscriber, publisher) = try await Self.pausedClients(broker, capacity: 5, logger: log.logger(level: .warning))
            let subscription = try await subscriber.subscribe(to: ["flood"], qos: .atLeastOnce)
            try await Self.flood(publisher, 50)
            try await Self.waitUntilHolding(5, subscription)
            #expect(subscription.waitingMessages == 5)
            // The consumer is not reading; the disconnect must not wait for it. Had the paused
            // thread not stopped, the disconnect would have completed in the background, saying so.
            await subscriber.disconnect()
            #expect(!log.messages.contains { $0.contains("disconnect completes in the background") }, "\(log.messages)")
            let kept = try await withTimeout(readinessLimit, "draining the ended subscription") {
                var texts: [String] = []
                for await message in subscription { texts.append(message.payload.text) }
                return texts
            }
            #expect(kept.count >= 5)
            #expect(kept == (0..<kept.count).map { "\($0)" })
            await publisher.disconnect()
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
            let message = await nextMessage(on: other, within: readinessLimit)
            #expect(message?.payload.text == "still here")
            _ = flood?.filters  // held to here
            await consumer?.value
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }

    /// A connected pauseReading subscriber with room for `capacity` messages (logging to
    /// `logger`), and a publisher.
    static func pausedClients(
        _ broker: Broker, capacity: Int, logger: Logger = testLogger
    ) async throws -> (subscriber: MQTTClient, publisher: MQTTClient) {
        var subscriberConfiguration = configuration(for: broker, clientID: "paused")
        subscriberConfiguration.inboundBufferCapacity = capacity
        subscriberConfiguration.inboundOverflow = .pauseReading
        let subscriber = MQTTClient(configuration: subscriberConfiguration, logger: logger)
        try await subscriber.connect()
        return (subscriber, try await connectedClient(configuration(for: broker, clientID: "fast")))
    }

    /// Publishes "0" … "count − 1" to `flood`, QoS 1.
    static func flood(_ publisher: MQTTClient, _ count: Int) async throws {
        for index in 0..<count {
            try await publisher.publish(to: "flood", payload: "\(index)".bytes, qos: .atLeastOnce, retain: false)
        }
    }

    /// Waits until `subscription` holds `count` messages nobody has taken.
    static func waitUntilHolding(_ count: Int, _ subscription: MQTTSubscription) async throws {
        try await pollUntil("\(count) messages held", explain: { "\(subscription.waitingMessages ?? 0) held" }) {
            (subscription.waitingMessages ?? 0) >= count
        }
    }
}
