import BrokerHarness
import BeaconMQTT
import Logging
import Synchronization
import TestSupport

/// Collects every message on some filters, as `mosquitto_sub` would; waits for one that matches.
final class Watcher: Sendable {
    let client: MQTTClient
    let received = Mutex<[MQTTMessage]>([])
    let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    static func start(_ broker: Broker, _ filters: [String], version: MQTTProtocolVersion = .v5, clientID: String? = nil) async throws -> Watcher {
        let configuration = MQTTConfiguration(
            host: broker.host, port: broker.port, clientID: clientID ?? "watch-\(UInt32.random(in: 0...UInt32.max))", protocolVersion: version)
        let client = MQTTClient(configuration: configuration, logger: Logger(label: "test.watch"))
        try await client.connect()
        let subscription = try await client.subscribe(to: filters, qos: .atLeastOnce)
        let watcher = Watcher(client: client)
        let task = Task { for await m in subscription { watcher.received.withLock { $0.append(m) } } }
        watcher.task.withLock { $0 = task }
        return watcher
    }

    init(client: MQTTClient) { self.client = client }

    var messages: [MQTTMessage] { received.withLock { $0 } }
    func count(_ predicate: (MQTTMessage) -> Bool) -> Int { messages.filter(predicate).count }
    func clear() { received.withLock { $0.removeAll() } }

    /// The first message so far that matches, polling until one arrives.
    @discardableResult
    func until(_ what: String, timeout: Duration = readinessLimit, _ predicate: (MQTTMessage) -> Bool) async throws -> MQTTMessage {
        try await poll(what, within: timeout, explain: {
            "last messages:\n  " + messages.suffix(8).map { "\($0.topic) \($0.text.prefix(160))" }.joined(separator: "\n  ")
        }) { messages.first(where: predicate) }
    }

    func stop() async {
        task.withLock { $0?.cancel() }
        await client.disconnect()
    }
}

extension MQTTMessage {
    var text: String { String(decoding: payload, as: UTF8.self) }
}
