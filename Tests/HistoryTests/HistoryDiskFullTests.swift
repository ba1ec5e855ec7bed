import BeaconCore
@testable import BeaconHistory
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import TestSupport
import Testing

/// `beacon-history run` on a disk that fills while it records: a real tmpfs of 2 MB mounted for
/// the test (as root; skipped, saying so, otherwise). The recorder says the disk is full once,
/// not at every attempt, keeps what it received, and writes it when space is freed; its
/// `--metrics` show the failed writes and the records waiting, then the writes.
@Suite("History: a full disk while recording", .serialized, .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct HistoryDiskFullTests {
    /// A tmpfs of `megabytes` mounted at a new test directory.
    static func mountSmallDisk(megabytes: Int) async throws -> String {
        let directory = try TestDirectory.make("history-disk-full").appendingPathComponent("disk").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try await runCommand("/bin/mount", ["-t", "tmpfs", "-o", "size=\(megabytes)m", "tmpfs", directory])
        return directory
    }

    /// Fills the file system holding `directory` with `path`, written until the disk refuses more.
    static func fill(_ path: String) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(descriptor) }
        let block = [UInt8](repeating: 0x5a, count: 4096)
        while block.withUnsafeBytes({ write(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    @Test func aFullDiskIsSaidOnceAndWrittenWhenFreed() async throws {
        let disk = try await Self.mountSmallDisk(megabytes: 2)
        do {
            try await Self.record(on: disk)
        } catch {
            try? await runCommand("/bin/umount", ["-l", disk])
            throw error
        }
        try await runCommand("/bin/umount", ["-l", disk])
    }

    /// The `history.failing_for` seconds of each "cannot write the visits" line of `log`.
    static func failingFor(_ log: String) -> [Double] {
        log.split(separator: "\n").filter { $0.contains("cannot write the visits") }.compactMap { line in
            line.split(separator: " ").first { $0.hasPrefix("history.failing_for=") }.flatMap { Double($0.dropFirst("history.failing_for=".count)) }
        }
    }

    static func record(on disk: String) async throws {
        try await withBroker { broker in
            let log = "\(disk)/../history.log"
            let database = "\(disk)/history.sqlite"
            let metrics = HTTPProbe(port: try Broker.unusedPort())
            let recorder = try ChildProcess(executable: try HistoryStack.binary("beacon-history"), arguments: [
                "run", "--port", "\(broker.port)", "--client-id", "full-disk", "--database", database, "--store-raw-device-ids",
                "--log-level", "debug", "--metrics", "127.0.0.1:\(metrics.port)",
            ], outputFile: log)
            let metric = { (name: String, labels: [String]) async -> Double? in
                guard let text = try? await metrics.get("/metrics").text else { return nil }
                return MetricsText.value(text, name, labels)
            }
            defer { recorder.send(SIGKILL) }
            let text = { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }
            try await pollUntil("the recorder connected", explain: { text() }) { text().contains("[BeaconHistory] connected") }
            Self.fill("\(disk)/filler")
            let client = MQTTClient(configuration: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "full-disk-feed"),
                                    logger: Logger(label: "test.feed"))
            try await client.connect()
            let time: Int64 = 1_764_151_200_000
            // Enough new rows to need pages the full disk cannot give.
            for shopper in 0..<400 {
                let enter = Wire.enter("shopper-\(shopper)-with-a-long-name-to-take-room", 101, at: time + Int64(shopper) * 1000, seq: 1)
                try await client.publish(to: TopicScheme.standard.string(for: enter.topic), payload: enter.encoded(), qos: .atLeastOnce, retain: false)
            }
            try await pollUntil("the full disk said", explain: { String(text().suffix(3000)) }) { text().contains("is full: nothing more can be written") }
            // Several flushes fail meanwhile (one a second); the failure is said once a minute.
            try await Task.sleep(for: .seconds(4))
            let said = Self.failingFor(text())
            #expect(!said.isEmpty && zip(said, said.dropFirst()).allSatisfy { $1 - $0 >= 59 }, "said at \(said) s: \(text().suffix(3000))")
            #expect(recorder.isRunning)
            #expect((await metric("beaconnet_history_write_failures_total", []) ?? 0) >= Double(said.count + 2), "a failed write a second")
            #expect((await metric("beaconnet_history_pending_records", []) ?? 0) > 0)
            #expect(await metric("beaconnet_history_messages_total", [#"outcome="applied""#]) == 400)
            try FileManager.default.removeItem(atPath: "\(disk)/filler")
            try await pollUntil("writing again once space is freed", explain: { String(text().suffix(3000)) }) {
                text().contains("writing the visits again")
            }
            #expect(await metric("beaconnet_history_pending_records", []) == 0)
            #expect((await metric("beaconnet_history_records_written_total", []) ?? 0) >= 400)
            await client.disconnect()
            recorder.send(SIGTERM)
            #expect(await recorder.waitForExit(timeout: readinessLimit) && recorder.exitStatus == 0)
            let visits = try await HistoryDatabaseLocation(parsing: database).withDatabase(access: .reading, logger: Logger(label: "test")) {
                try await $0.storeVisits(stores: [101], began: time..<(time + 1_000_000))
            }
            #expect(visits.count == 400, "every shopper's visit written once the disk had room")
        }
    }
}
