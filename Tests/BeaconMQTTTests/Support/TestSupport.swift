import BeaconMQTT
import BrokerHarness
import Foundation
import Logging
import Synchronization
import TestSupport

/// Tests log errors only (the failures they provoke on purpose would fill the output with
/// warnings); `BEACONNET_TEST_LOG=debug` (or trace) shows the client's story.
let testLogger: Logger = {
    var logger = Logger(label: "beaconnet.mqtt.tests")
    let level = ProcessInfo.processInfo.environment["BEACONNET_TEST_LOG"].flatMap(Logger.Level.init(rawValue:))
    logger.logLevel = level ?? .error
    return logger
}()

/// A client configuration for `broker`'s plain listener, with test-sized timeouts.
func configuration(
    for broker: Broker, clientID: String, protocolVersion: MQTTProtocolVersion = .v5
) -> MQTTConfiguration {
    MQTTConfiguration(
        host: broker.host, port: broker.port, clientID: clientID,
        protocolVersion: protocolVersion,
        reconnect: MQTTReconnectPolicy(minimumDelay: .seconds(1), maximumDelay: .seconds(1)),
        connectTimeout: .seconds(5))
}

/// A connected client; the caller disconnects it.
func connectedClient(_ configuration: MQTTConfiguration) async throws -> MQTTClient {
    let client = MQTTClient(configuration: configuration, logger: testLogger)
    try await client.connect()
    return client
}

/// The next `count` messages of `subscription`.
func collect(
    _ count: Int, from subscription: MQTTSubscription, within limit: Duration = readinessLimit
) async throws -> [MQTTMessage] {
    try await withTimeout(limit, "receiving \(count) messages on \(subscription.filters)") {
        var messages: [MQTTMessage] = []
        messages.reserveCapacity(count)
        for await message in subscription {
            messages.append(message)
            if messages.count == count { break }
        }
        return messages
    }
}

/// The next message within `limit`, or `nil` (for "nothing arrives" checks; a timeout ends
/// the subscription's stream).
func nextMessage(on subscription: MQTTSubscription, within limit: Duration) async -> MQTTMessage? {
    try? await withTimeout(limit, "next message") {
        for await message in subscription { return message }
        throw TimedOut(what: "subscription ended", after: limit)
    }
}

/// The next connection event within `limit`.
func nextEvent(
    _ events: AsyncStream<MQTTConnectionEvent>, within limit: Duration = readinessLimit
) async throws -> MQTTConnectionEvent {
    try await withTimeout(limit, "next connection event") {
        for await event in events { return event }
        throw TimedOut(what: "event stream ended", after: limit)
    }
}

/// Reads a subscription in a background task into an array that a test can poll, so waiting
/// with a deadline never cancels (and so ends) the subscription's stream.
final class MessageCollector: Sendable {
    private let storage = Mutex<[MQTTMessage]>([])
    private let reader = Mutex<Task<Void, Never>?>(nil)

    init(_ subscription: MQTTSubscription) {
        let task = Task { [storage = self] in
            for await message in subscription { storage.append(message) }
        }
        reader.withLock { $0 = task }
    }

    private func append(_ message: MQTTMessage) { storage.withLock { $0.append(message) } }

    /// What arrived so far.
    var messages: [MQTTMessage] { storage.withLock { $0 } }

    /// Waits until at least `count` messages arrived, or throws ``TimedOut``.
    @discardableResult
    func wait(for count: Int, within limit: Duration = readinessLimit) async throws -> [MQTTMessage] {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            let current = messages
            if current.count >= count { return current }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TimedOut(what: "receiving \(count) messages", after: limit)
    }

    /// Stops reading (and so ends the subscription).
    func stop() { reader.withLock { $0?.cancel() } }
}

extension String {
    var bytes: [UInt8] { Array(utf8) }
}

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}
