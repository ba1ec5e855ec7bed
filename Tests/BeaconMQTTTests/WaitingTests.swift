import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// What a task waits for — an acknowledgement, the connection — ends when the task is cancelled,
/// so a task group can cancel the loser of a race and nothing is left running.
@Suite("Waiting: cancellation and the connection's events", .timeLimit(.minutes(2)))
struct WaitingTests {
    @Test("a publish waiting for its acknowledgement ends with .cancelled when its task is cancelled; the client goes on")
    func cancelledPublish() async throws {
        try await withBroker { broker in
            let client = try await connectedClient(configuration(for: broker, clientID: "cancel-ack"))
            // A stopped broker never acknowledges: the publish waits until cancelled.
            broker.pause()
            let publishing = Task {
                do throws(MQTTError) {
                    try await client.publish(to: "wait/ack", payload: "x".bytes, qos: .atLeastOnce, retain: false)
                    return MQTTError?.none
                } catch {
                    return error
                }
            }
            try await Task.sleep(for: .milliseconds(200))
            publishing.cancel()
            let outcome = try await withTimeout(.seconds(10), "the cancelled publish to end") { await publishing.value }
            broker.resume()
            #expect(outcome == .cancelled)
            // The acknowledgement that comes later is dropped; the next publish gets its own.
            try await client.publish(to: "wait/next", payload: "y".bytes, qos: .atLeastOnce, retain: false)
            await client.disconnect()
        }
    }

    @Test("waitUntilConnected: at once when connected, at the reconnect after a restart, false once disconnected or cancelled")
    func waitUntilConnected() async throws {
        try await withBroker(BrokerConfiguration(persistence: true)) { broker in
            let client = try await connectedClient(configuration(for: broker, clientID: "wait-connected"))
            #expect(await client.waitUntilConnected())
            let events = client.connectionEvents()
            try await broker.stop()
            guard case .lost = try await nextEvent(events) else { Issue.record("expected .lost"); return }
            #expect(!client.isConnected)
            let waiting = Task { await client.waitUntilConnected() }
            try await broker.start()
            #expect(try await withTimeout(.seconds(30), "the reconnect") { await waiting.value })
            #expect(client.isConnected)
            guard case .connected = try await nextEvent(events) else { Issue.record("expected .connected"); return }

            try await broker.stop()
            guard case .lost = try await nextEvent(events) else { Issue.record("expected .lost"); return }
            let cancelled = Task { await client.waitUntilConnected() }
            cancelled.cancel()
            #expect(try await withTimeout(.seconds(10), "the cancelled wait") { await cancelled.value } == false)
            let closing = Task { await client.waitUntilConnected() }
            await client.disconnect()
            #expect(try await withTimeout(.seconds(10), "the wait to see the client closed") { await closing.value } == false)
        }
    }
}
