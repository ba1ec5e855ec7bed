import BrokerHarness
import Foundation
import TestSupport
import Testing

/// A day of history without a broker: `beacon-sim day` writes what the aggregator would have
/// published over a short shop day, `beacon-history import` keeps its visits, and the report
/// says when people came — as the demo fills its charts.
@Suite("History: a simulated day imported", .hangLimit)
struct HistoryImportTests {
    /// How long a program may run: `beacon-sim day` simulates a shop day through the engine,
    /// about 25 s in a debug build alone and several times that on two busy cores.
    static let programLimit: Duration = .seconds(480)

    /// Runs `program` with `arguments` to its exit; its status and what it printed.
    static func run(_ program: String, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        let log = "\(try TestDirectory.make("history-import-run").path)/output"
        let child = try ChildProcess(executable: try HistoryStack.binary(program), arguments: arguments, outputFile: log)
        #expect(await child.waitForExit(timeout: programLimit))
        return (child.exitStatus ?? -1, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// The report's visits per hour, by the hour's start (Unix ms).
    static func hourlyVisits(database: String) async throws -> [Int64: Int] {
        let (status, output) = try await run("beacon-history", [
            "report", "--database", database, "--store", "101", "--from", "2026-11-30", "--to", "2026-12-01", "--format", "json",
        ])
        #expect(status == 0, "\(output)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
        let hours = try #require(json["hourly"] as? [[String: Any]])
        return Dictionary(uniqueKeysWithValues: hours.compactMap { hour in
            guard let start = (hour["start"] as? NSNumber)?.int64Value, let visits = (hour["visits"] as? NSNumber)?.intValue else { return nil }
            return (start, visits)
        })
    }

    @Test func aShortDayImportedTwiceCountsItsVisitsOnce() async throws {
        let directory = try TestDirectory.make("history-import").path
        let events = "\(directory)/day.txt", database = "\(directory)/history.sqlite"
        let (dayStatus, dayOutput) = try await Self.run("beacon-sim", [
            "day", "--events", events, "--date", "2026-11-30", "--opens", "10", "--closes", "11", "--busiest-arrival-interval", "60",
        ])
        #expect(dayStatus == 0, "\(dayOutput)")
        // A line that is not 'topic payload' in the middle of the recording loses nothing around it.
        var lines = try String(contentsOfFile: events, encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false)
        lines.insert("not-a-message", at: lines.count / 2)
        try lines.joined(separator: "\n").write(toFile: events, atomically: true, encoding: .utf8)
        let secret = try HistoryProgramTests.secretFile()
        let importing = ["import", "--database", database, "--pseudonym-secret", secret, events]
        let (first, firstOutput) = try await Self.run("beacon-history", importing)
        #expect(first == 0, "\(firstOutput)")
        #expect(firstOutput.contains("1 lines not 'topic payload'"), "\(firstOutput)")
        let once = try await Self.hourlyVisits(database: database)
        let (second, secondOutput) = try await Self.run("beacon-history", importing)
        #expect(second == 0, "\(secondOutput)")
        #expect(try await Self.hourlyVisits(database: database) == once)

        // People came in while the doors were open, 10:00–11:00 in the machine's time zone; a
        // shopper who lingers at the door after closing may be counted in again before leaving.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        let ten = try #require(calendar.date(from: DateComponents(year: 2026, month: 11, day: 30, hour: 10)))
        let opening = Int64(ten.timeIntervalSince1970 * 1000)
        #expect((once[opening] ?? 0) > 0, "\(once)")
        let total = once.values.reduce(0, +)
        #expect(Double(once[opening] ?? 0) >= 0.9 * Double(total), "\(once)")
        #expect(once.filter { $0.key < opening || $0.key > opening + 3_600_000 }.values.allSatisfy { $0 == 0 }, "\(once)")
    }

    @Test func aRecordingWithoutEventsOrStatesIsRefused() async throws {
        let directory = try TestDirectory.make("history-import-empty").path
        try "beaconnet/occupancy/101 {\"v\":1}\n".write(toFile: "\(directory)/other.txt", atomically: true, encoding: .utf8)
        let (status, output) = try await Self.run("beacon-history", [
            "import", "--database", "\(directory)/h.sqlite", "--store-raw-device-ids", "\(directory)/other.txt",
        ])
        #expect(status == 65, "\(output)")
        #expect(output.contains("no event or device state in it"), "\(output)")
        let (missing, missingOutput) = try await Self.run("beacon-history", [
            "import", "--database", "\(directory)/h.sqlite", "--store-raw-device-ids", "\(directory)/absent.txt",
        ])
        #expect(missing == 65, "\(missingOutput)")
        #expect(missingOutput.contains("absent.txt"), "\(missingOutput)")
    }
}
