import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The aggregator's load: about 8 000 batch messages a second (400 000 sightings in batches
/// of 50). Not a benchmark (a shared 2-core CI box varies too much to assert a rate), but
/// every message must arrive, and the figures are printed.
@Suite("Throughput", .hangLimit)
struct ThroughputTests {
    @Test("20 000 batch-sized QoS 0 messages from 4 publishing tasks all arrive")
    func inboundBatches() async throws {
        // The publisher outruns any subscriber (tens of thousands a second); mosquitto's default
        // max_queued_messages (1000) would then drop for the subscriber, which is the broker
        // protecting itself, not what this test measures.
        try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 1000000"])) { broker in
            var subscriberConfiguration = configuration(for: broker, clientID: "aggregator")
            subscriberConfiguration.inboundBufferCapacity = 50_000
            let subscriber = try await connectedClient(subscriberConfiguration)
            let publisher = try await connectedClient(configuration(for: broker, clientID: "sim"))
            let subscription = try await subscriber.subscribe(to: ["beaconnet/sightings/#"], qos: .atMostOnce)
            let tasks = 4
            let perTask = 5_000
            let payload = [UInt8](repeating: UInt8(ascii: "x"), count: 2_500)  // ~50 sightings of JSON
            let started = ContinuousClock.now
            let collector = MessageCollector(subscription)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<tasks {
                    group.addTask {
                        for _ in 0..<perTask {
                            try await publisher.publish(
                                to: "beaconnet/sightings/\(task)/gw-\(task)", payload: payload, qos: .atMostOnce, retain: false)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let published = ContinuousClock.now - started
            let messages: [MQTTMessage]
            do {
                messages = try await collector.wait(for: tasks * perTask)
            } catch {
                print("received only \(collector.messages.count), dropped \(subscription.droppedMessages)")
                throw error
            }
            let received = ContinuousClock.now - started
            #expect(messages.count == tasks * perTask)
            #expect(subscription.droppedMessages == 0)
            let seconds = Double(received.components.seconds) + Double(received.components.attoseconds) / 1e18
            print("throughput: published \(tasks * perTask) in \(published), received all in \(received): \(Int(Double(tasks * perTask) / seconds)) messages/s")
            await publisher.disconnect()
            await subscriber.disconnect()
        }
    }
}
