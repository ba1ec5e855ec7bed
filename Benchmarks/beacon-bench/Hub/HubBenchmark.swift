import ArgumentParser
import BeaconAggregator
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import BeaconSim
import Logging

/// The output hub at chain scale: a mosquitto with persistence holding one retained device state
/// per device, as the aggregators leave them. Measures how fast they go in, the broker's
/// resident memory, how long it takes to save them at shutdown and to load them at start, and
/// how long a new subscriber (an aggregator restoring, a dashboard starting) takes to read them
/// all — before and after the restart.
struct HubBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hub",
        abstract: "The output hub with a retained device state per device: memory, restart and read-back times.")

    @Option(help: "Devices, one retained state each.")
    var devices = 1_000_000

    @Option(help: "Stores the devices are spread over.")
    var stores = 2000

    @Option(help: "mosquitto's max_queued_messages for the hub (deploy/mosquitto/central.conf: 0, no limit).")
    var maxQueued = 0

    @Option(help: "mosquitto's max_queued_bytes for the hub (central.conf: 1073741824; 0: no limit).")
    var maxQueuedBytes = 1_073_741_824

    static let window = 1000

    func validate() throws {
        guard (1...10_000_000).contains(devices) else { throw ValidationError("--devices \(devices) is not 1…10 000 000") }
        guard (1...65_535).contains(stores) else { throw ValidationError("--stores \(stores) is not 1…65 535") }
    }

    func run() async throws {
        let logger = Logger(label: "bench.hub")
        let scheme = TopicScheme.standard
        let marker = "beaconnet/bench/marker"
        // The shipped hub's queues (central.conf), unless --max-queued says otherwise.
        let hub = BrokerConfiguration(persistence: true, extraConfiguration: [
            "max_queued_messages \(maxQueued)", "max_queued_bytes \(maxQueuedBytes)", "max_inflight_messages 1000", "autosave_interval 0",
        ])
        try await withBroker(hub) { broker in
            let empty = residentKiB(of: broker)
            let publisher = MQTTClient(configuration: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "bench-hub-publisher"), logger: logger)
            try await publisher.connect()
            let start = ContinuousClock.now
            var bytes = 0
            // At most a window unacknowledged, as the aggregator publishes: more than MQTT's 65 535
            // packet ids in flight would reuse ids still waiting.
            var waiting: [MQTTPublishReceipt] = []
            waiting.reserveCapacity(Self.window)
            for index in 0..<devices {
                let state = Self.state(index, stores: stores)
                let payload = state.encoded()
                bytes += payload.count
                if waiting.count == Self.window {
                    for receipt in waiting { try await receipt.acknowledged() }
                    waiting.removeAll(keepingCapacity: true)
                }
                // QoS 1, as the aggregators publish them: retained, they are delivered at QoS 1.
                waiting.append(try publisher.enqueuePublish(to: scheme.string(for: state.topic), payload: payload, qos: .atLeastOnce, retain: true))
            }
            for receipt in waiting { try await receipt.acknowledged() }
            // Behind every state on the one connection: acknowledged, the broker has taken them all.
            try await publisher.publish(to: marker, payload: Array("done".utf8), qos: .atLeastOnce, retain: false)
            let published = ContinuousClock.now - start
            await publisher.disconnect()
            let full = residentKiB(of: broker)
            print("hub: \(devices) retained device states, max_queued_messages \(maxQueued), max_queued_bytes \(maxQueuedBytes) (\(stores) stores, \(bytes / devices) B a payload on average, \(bytes / 1_048_576) MiB in all)")
            print("  published at QoS 1 on one connection: \(Self.format(published)) (\(Self.rate(devices, published)) states/s)")
            print("  broker resident: \(empty / 1024) MiB empty, \(full / 1024) MiB holding them (\(Self.perDevice(full - empty, devices)) B a device)")
            let firstRead = try await Self.readBack(broker: broker, expected: devices, client: "bench-hub-reader-1", logger: logger)
            print("  a new subscriber to \(scheme.allDeviceStates) read them all in \(Self.format(firstRead.elapsed)) (\(firstRead.count) states, \(firstRead.decoded) decoded)")

            let stopping = ContinuousClock.now
            try await broker.stop()
            let saved = ContinuousClock.now - stopping
            let database = (try? FileManager.default.attributesOfItem(atPath: "\(broker.directory)/mosquitto.db")[.size] as? Int) ?? 0
            print("  stopped (SIGTERM: the database saved) in \(Self.format(saved)); mosquitto.db \(database / 1_048_576) MiB")
            let starting = ContinuousClock.now
            try await broker.start()
            let loaded = ContinuousClock.now - starting
            print("  started with them (accepting connections) in \(Self.format(loaded)); resident \(residentKiB(of: broker) / 1024) MiB")
            let secondRead = try await Self.readBack(broker: broker, expected: devices, client: "bench-hub-reader-2", logger: logger)
            print("  read back after the restart in \(Self.format(secondRead.elapsed)) (\(secondRead.count) states); restart to every state read: \(Self.format(loaded + secondRead.elapsed)) (target < 60 s at 1 M)")
            try await aggregatorStart(broker: broker, logger: logger)
        }
    }

    /// An aggregator owning a third of the chain (a shard's) starting against the hub: it reads
    /// every retained state back before it decides anything. Timed from its start to its first
    /// `online` status on the hub.
    func aggregatorStart(broker: Broker, logger: Logger) async throws {
        let chain = try DefaultChain.config(stores: stores).resolve()
        let owned = "101-\(100 + max(1, stores / 3))"
        var quiet = Logger(label: "bench.hub.aggregator")
        quiet.logLevel = .warning
        let settings = AggregatorSettings(
            chain: chain, mqtt: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "bench-hub-aggregator"),
            aggregator: try AggregatorID("bench"), stores: try StoreSelection(parsing: owned), version: "bench")
        let watcher = MQTTClient(configuration: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "bench-hub-status"), logger: quiet)
        try await watcher.connect()
        let statuses = try await watcher.subscribe(to: [TopicScheme.standard.string(for: .aggregatorStatus(settings.aggregator))], qos: .atLeastOnce)
        let before = residentBytes()
        let service = AggregatorService(settings: settings, logger: quiet)
        let start = ContinuousClock.now
        let running = Task { try await service.run() }
        var online: Duration?
        for await message in statuses {
            if let status = try? AggregatorStatus.decode(message.payload), status.state == .online {
                online = ContinuousClock.now - start
                break
            }
        }
        let grown = residentBytes() - before
        running.cancel()
        _ = try? await running.value
        watcher.unsubscribe(statuses)
        await watcher.disconnect()
        print("  an aggregator owning stores \(owned) started in \(online.map(Self.format) ?? "–") (connected, every retained state read back, its own restored), its process grown by \(grown / 1_048_576) MiB")
    }

    /// Subscribes to every device state and counts what arrives until its own marker, published
    /// after the subscription (the broker sends the retained states of a new subscription first).
    static func readBack(broker: Broker, expected: Int, client id: String, logger: Logger) async throws -> (elapsed: Duration, count: Int, decoded: Int) {
        var configuration = MQTTConfiguration(host: broker.host, port: broker.port, clientID: id)
        configuration.inboundBufferCapacity = expected + 16
        let client = MQTTClient(configuration: configuration, logger: logger)
        try await client.connect()
        let marker = "beaconnet/bench/\(id)"
        let start = ContinuousClock.now
        let subscription = try await client.subscribe(to: [TopicScheme.standard.allDeviceStates, marker], qos: .atLeastOnce)
        try await client.publish(to: marker, payload: Array("end".utf8), qos: .atLeastOnce, retain: false)
        var count = 0, decoded = 0
        for await message in subscription {
            if message.topic == marker { break }
            count += 1
            if (try? DeviceState.decode(message.payload)) != nil { decoded += 1 }
        }
        let elapsed = ContinuousClock.now - start
        client.unsubscribe(subscription)
        await client.disconnect()
        guard subscription.droppedMessages == 0 else { throw BenchError("the reader itself dropped \(subscription.droppedMessages) states") }
        return (elapsed, count, decoded)
    }

    /// Device `index`'s state as an aggregator leaves it: inside a section of its store.
    static func state(_ index: Int, stores: Int) -> DeviceState {
        let store = UInt16(101 + index % stores)
        let section = UInt16(1 + index % 6)
        let time: Int64 = 1_796_000_000_000 + Int64(index)
        return DeviceState(
            device: try! DeviceID(String(format: "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-%d-%d", 1000 + index / 65_536, index % 65_536)),
            presence: .inside, uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", region: .section(SectionRef(store: store, section: section)),
            storeName: "Store \(store)", sectionName: "Section \(section)", since: time, storeSince: time, sectionSince: time,
            lastSeen: time + 30_000, proximity: .near, accuracy: 2.4, confidence: 0.93, sequence: UInt64(1 + index % 40))
    }

    static func format(_ duration: Duration) -> String { String(format: "%.1f s", duration.seconds) }
    static func rate(_ count: Int, _ duration: Duration) -> String { String(format: "%.0f", Double(count) / max(duration.seconds, 1e-9)) }
    static func perDevice(_ kib: Int, _ devices: Int) -> String { String(format: "%.0f", Double(kib) * 1024 / Double(devices)) }
}

/// The resident memory of `broker`'s process, KiB; 0 when unreadable.
func residentKiB(of broker: Broker) -> Int {
    broker.processID.map { residentKiB(pid: $0) } ?? 0
}
