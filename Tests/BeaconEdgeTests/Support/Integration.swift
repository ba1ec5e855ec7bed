import BeaconCore
import BeaconEdge
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Synchronization
import TestSupport

/// A subscriber with a persistent session, so that the broker queues what the edge publishes while
/// both reconnect after a broker restart (the broker runs with persistence).
final class Watcher: Sendable {
    let client: MQTTClient

    init(broker: Broker, clientID: String = "watcher") async throws {
        let configuration = MQTTConfiguration(
            host: broker.host, port: broker.port, clientID: clientID, cleanSession: false,
            reconnect: MQTTReconnectPolicy(minimumDelay: .seconds(1), maximumDelay: .seconds(1), exponentialBackoff: false),
            connectTimeout: .seconds(5))
        client = MQTTClient(configuration: configuration, logger: testLogger)
        try await client.connect()
        let subscription = try await client.subscribe(to: ["beaconnet/sightings/#", "beaconnet/gateways/+/status"], qos: .atLeastOnce)
        let box = MessageBox()
        self.box = box
        readerTask = Task {
            for await message in subscription { box.append(message) }
        }
    }

    private let box: MessageBox
    private let readerTask: Task<Void, Never>

    /// Everything received so far.
    var received: [MQTTMessage] { box.all }

    /// The sighting batches received, decoded, in arrival order.
    var batches: [SightingBatch] {
        received.filter { $0.topic.hasPrefix("beaconnet/sightings/") }.compactMap { try? SightingBatch.decode($0.payload) }
    }

    /// The statuses received, decoded, in arrival order.
    var statuses: [GatewayStatus] {
        received.filter { $0.topic.hasPrefix("beaconnet/gateways/") }.compactMap { try? GatewayStatus.decode($0.payload) }
    }

    /// The edge's own final status: `offline` with its counters. (The Last Will is `offline` too,
    /// but bare: mosquitto may publish it when it is stopped under a connected edge.)
    var finalStatus: GatewayStatus? {
        statuses.last { $0.state == .offline && $0.counters.published != nil }
    }

    /// Waits until `condition` holds for what was received, polling every 20 ms.
    func wait(within limit: Duration = readinessLimit, for what: String, _ condition: @escaping @Sendable (Watcher) -> Bool) async throws {
        try await pollUntil(what, within: limit) { condition(self) }
    }

    func stop() async {
        readerTask.cancel()
        await client.disconnect()
    }
}

final class MessageBox: Sendable {
    private let storage = Mutex<[MQTTMessage]>([])
    func append(_ message: MQTTMessage) { storage.withLock { $0.append(message) } }
    var all: [MQTTMessage] { storage.withLock { $0 } }
}

/// The csacca capture cut after its last advertising report (the rest is 2 minutes of other
/// traffic), so a replay at a few times the recorded pace lasts a few seconds.
func trimmedCsacca() throws -> BtsnoopFile {
    let bytes = try TestData.bytes(TestData.csacca)
    let file = try BtsnoopFile(bytes)
    var records = file.records
    var end = 16
    while let record = try records.next() {
        if let event = record.hciEvent, event.first == HCIEvent.leMetaEventCode {
            end = record.offset + 24 + record.payload.count
        }
    }
    return try BtsnoopFile(bytes[0..<end])
}

/// One sighting as compared between what was expected and what arrived.
struct SightingKey: Hashable, CustomStringConvertible {
    var device: String
    var time: Int64
    var rssi: Int
    var description: String { "\(device)@\(time)/\(rssi)" }
}

/// The sightings the pipeline makes of `file` (the same code as the edge, with no broker): what
/// a subscriber must receive, in this order, when nothing is dropped.
func expectedSightings(of file: BtsnoopFile, allow: AllowList) throws -> [SightingKey] {
    var pipeline = ReportPipeline(allowList: allow, batcher: Batcher(gateway: testGateway, windowMilliseconds: 100))
    var sealed: [SealedBatch] = []
    for packet in try packets(of: file) { pipeline.consume(.packet(packet)) { sealed.append($0) } }
    pipeline.finish { sealed.append($0) }
    return try decoded(sealed).flatMap(\.sightings).map { SightingKey(device: $0.device.rawValue, time: $0.time, rssi: $0.rssi) }
}

/// Whether `part` is `whole` with some elements left out (order kept).
func isSubsequence(_ part: [SightingKey], of whole: [SightingKey]) -> Bool {
    var iterator = whole.makeIterator()
    outer: for element in part {
        while let candidate = iterator.next() {
            if candidate == element { continue outer }
        }
        return false
    }
    return true
}
