import Foundation
import TestSupport
import Testing
import BeaconWire
import BrokerHarness
@testable import BeaconAggregator

/// A snapshot write that fails shows on the status topic, not only in the log, and the report
/// goes once a write succeeds.
@Suite("Aggregator status: a failing snapshot write")
struct SnapshotErrorTests {
    @Test("the status carries snapshot_error with the reason while writes fail, and drops it once one succeeds")
    func snapshotError() async throws {
        let directory = try TestDirectory.make("snapshot-error")
        // A regular file where the snapshot's directory should be: every write fails (even as root).
        let blocker = directory.appendingPathComponent("state")
        try Data("not a directory".utf8).write(to: blocker)
        let path = blocker.appendingPathComponent("snapshot.jsonl").path
        try await withBroker { broker in
            let aggregator = try RunningAggregator.start(broker, id: "agg-snap") {
                $0.snapshotPath = path
                $0.snapshotInterval = .milliseconds(200)
                $0.statusInterval = .milliseconds(300)
            }
            let watch = try await Watcher.start(broker, ["beaconnet/aggregators/agg-snap/status"])
            let failing = try await watch.until("a status with snapshot_error") { (try? AggregatorStatus.decode($0.payload))?.snapshotError != nil }
            let report = try #require(try AggregatorStatus.decode(failing.payload).snapshotError)
            #expect(report.reason.contains("snapshot.jsonl") && report.reason.contains("Not a directory"), "\(report.reason)")
            #expect(report.time > 0)

            // The directory is fixed: the next write succeeds and the report goes.
            watch.clear()
            try FileManager.default.removeItem(at: blocker)
            try FileManager.default.createDirectory(at: blocker, withIntermediateDirectories: false)
            try await watch.until("a status without snapshot_error") { message in
                guard let s = try? AggregatorStatus.decode(message.payload) else { return false }
                return s.state == .online && s.snapshotError == nil
            }
            #expect(FileManager.default.fileExists(atPath: path))
            try await aggregator.stop()
            await watch.stop()
        }
    }
}
