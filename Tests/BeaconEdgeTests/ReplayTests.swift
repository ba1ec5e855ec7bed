import AsyncAlgorithms
import BeaconCore
import BeaconEdge
import Foundation
import Synchronization
import TestSupport
import Testing

/// The replay source on its own: pacing, the clock between records, and the end of the file.
@Suite("Btsnoop replay", .hangLimit)
struct ReplayTests {
    /// A datalink-1002 capture of `events` (Event_Code first) at the given µs offsets from 2024.
    /// An offset of `Int64.min` writes a corrupt timestamp (the top bit set).
    func capture(_ events: [(offset: Int64, event: [UInt8])]) throws -> BtsnoopFile {
        var bytes = Array("btsnoop".utf8) + [0, 0, 0, 0, 1, 0, 0, 0x03, 0xEA]
        for (offset, event) in events {
            let packet = [HCIEvent.h4EventPacketType] + event
            let length = UInt32(packet.count)
            let time = offset == .min ? Int64(bitPattern: 0x80DC_DDB3_0F2F_8000) : BtsnoopTimestamp.unixEpochOffset + 1_704_067_200_000_000 + offset
            for value in [length, length, UInt32(1), UInt32(0)] { bytes += withUnsafeBytes(of: value.bigEndian, Array.init) }
            bytes += withUnsafeBytes(of: time.bigEndian, Array.init)
            bytes += packet
        }
        return try BtsnoopFile(bytes)
    }

    func items(of replay: BtsnoopReplay, from channel: AsyncChannel<[SourceItem]>) async throws -> [SourceItem] {
        async let run: Void = replay.run()
        var items: [SourceItem] = []
        for await chunk in channel { items += chunk }
        try await run
        return items
    }

    @Test("at a finite speed records keep their spacing and the clock is sent between them")
    func paced() async throws {
        let event = legacyEvent(data: iBeaconData(csaccaUUID, major: 1, minor: 1))
        let file = try capture([(0, event), (2_000_000, event)])
        let channel = AsyncChannel<[SourceItem]>()
        let replay = BtsnoopReplay(file: file, path: "synthetic", speed: .factor(4), output: channel, logger: testLogger)
        let start = ContinuousClock.now
        let items = try await items(of: replay, from: channel)
        let elapsed = ContinuousClock.now - start
        // Paced: never sooner than the capture's spacing allows (a busy machine only makes it later).
        #expect(elapsed >= .milliseconds(450), "2 s of capture at 4× takes 0.5 s, took \(elapsed)")
        let clocks = items.compactMap { if case .clock(let t) = $0 { t } else { nil } }
        let packets = items.compactMap { if case .packet(let p) = $0 { p.time } else { nil } }
        #expect(packets == [1_704_067_200_000_000, 1_704_067_202_000_000])
        // Every 100 ms of wall time on a quiet machine; a busy one wakes the task later and sends
        // fewer ticks for the same gap. At least one must come, or windows could not close in gaps.
        #expect(clocks.count >= 1, "the capture's clock during the gap")
        #expect(clocks.allSatisfy { $0 > packets[0] && $0 < packets[1] }, "a tick never runs past the record still to come")
        #expect(clocks == clocks.sorted())
    }

    @Test("at max speed there is no clock item and no waiting; a time offset moves every record")
    func max() async throws {
        let event = legacyEvent(data: iBeaconData(csaccaUUID, major: 1, minor: 1))
        let file = try capture([(0, event), (3_600_000_000, event)])  // an hour apart
        let channel = AsyncChannel<[SourceItem]>()
        let replay = BtsnoopReplay(file: file, path: "synthetic", speed: .max, timeOffset: 5, output: channel, logger: testLogger)
        let items = try await items(of: replay, from: channel)
        let times = items.compactMap { if case .packet(let p) = $0 { p.time } else { nil } }
        #expect(items.count == 2)
        #expect(times == [1_704_067_200_000_005, 1_704_070_800_000_005])
    }

    @Test("speeds parse from the command line")
    func speeds() {
        #expect(BtsnoopReplay.Speed("max") == .max)
        #expect(BtsnoopReplay.Speed("1") == .factor(1))
        #expect(BtsnoopReplay.Speed("2.5") == .factor(2.5))
        #expect(BtsnoopReplay.Speed("0") == nil && BtsnoopReplay.Speed("fast") == nil)
    }

    @Test("a file that is not a capture is refused with its path and the reason")
    func notACapture() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("not-a-capture-\(UUID().uuidString)").path
        try "hello".write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect {
            _ = try BtsnoopReplay.open(path)
        } throws: { error in
            "\(error)".contains(path) && "\(error)".contains("btsnoop")
        }
        // Why a file cannot be read is said (Foundation leaves errno as it was: "Success").
        for (path, reason) in [("/nonexistent/capture.log", "No such file or directory"), (NSTemporaryDirectory(), "Is a directory")] {
            #expect { _ = try BtsnoopReplay.open(path) } throws: { "\($0)".contains(reason) }
        }
    }

    @Test("a record with an impossible timestamp is skipped, at any speed and when rebasing; the records around it replay")
    func implausibleTimestamp() async throws {
        let event = legacyEvent(data: iBeaconData(csaccaUUID, major: 1, minor: 1))
        let file = try capture([(.min, event), (0, event), (.min, event), (1_000, event)])
        // Rebasing starts from the first record with a real time.
        let offset = BtsnoopReplay.rebasedOffset(for: file)
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        #expect(abs(offset - (now - 1_704_067_200_000_000)) < 60_000_000)
        for speed in [BtsnoopReplay.Speed.max, .factor(100)] {
            let channel = AsyncChannel<[SourceItem]>()
            let replay = BtsnoopReplay(file: file, path: "synthetic", speed: speed, timeOffset: offset, output: channel, logger: testLogger)
            let times = try await items(of: replay, from: channel).compactMap { if case .packet(let p) = $0 { p.time } else { nil } }
            #expect(times == [1_704_067_200_000_000 + offset, 1_704_067_200_001_000 + offset])
        }
    }
    @Test("a record whose timestamp leaps years ahead and back is skipped; the replay neither sleeps nor jumps")
    func leapingTimestamp() async throws {
        let event = legacyEvent(data: iBeaconData(csaccaUUID, major: 1, minor: 1))
        let leap: Int64 = 30 * 31_557_600_000_000
        let file = try capture([(0, event), (leap, event), (1_000, event)])
        for speed in [BtsnoopReplay.Speed.max, .factor(1)] {
            let channel = AsyncChannel<[SourceItem]>()
            let replay = BtsnoopReplay(file: file, path: "synthetic", speed: speed, output: channel, logger: testLogger)
            // A replay that waited for the leap (30 years at 1×) would never end: the suite's time
            // limit fails it.
            let times = try await items(of: replay, from: channel).compactMap { if case .packet(let p) = $0 { p.time } else { nil } }
            #expect(times == [1_704_067_200_000_000, 1_704_067_200_001_000])
        }
    }

    @Test("the progress tracker: the share by bytes, the capture time reached, what the broker took, on a clock moved by hand")
    func progressTracker() {
        let clock = ManualClock()
        var tracker = BtsnoopReplay.ProgressTracker(total: 1000, clock: clock, interval: .seconds(5))
        let counters = EdgeCounters()
        tracker.read(offset: 16)
        tracker.reached(microseconds: 1_704_067_200_000_000)
        #expect(tracker.report(counters: counters) == nil, "nothing before the interval")
        tracker.read(offset: 500)
        tracker.reached(microseconds: 1_704_067_290_000_000)
        counters.publishedBatches.wrappingAdd(1, ordering: .relaxed)
        counters.published.wrappingAdd(7, ordering: .relaxed)
        clock.advance(by: .seconds(5))
        let report = tracker.report(counters: counters)
        #expect(report?.line == "50 % of the capture (2 records), capture time 2024-01-01 00:01:30 UTC (1 min 30 s in), "
            + "1 batches and 7 sightings published, 5 s elapsed")
        #expect(tracker.report(counters: counters) == nil, "once per interval")
    }

    @Test("a replay running longer than the progress interval logs how far it has got; a shorter one logs nothing more")
    func progressLogged() async throws {
        let event = legacyEvent(data: iBeaconData(csaccaUUID, major: 1, minor: 1))
        let file = try capture([(0, event), (2_000_000, event)])
        for (interval, logged) in [(Duration.milliseconds(100), true), (.seconds(3600), false)] {
            let log = LogCapture()
            let channel = AsyncChannel<[SourceItem]>()
            let replay = BtsnoopReplay(
                file: file, path: "synthetic", speed: .factor(4), output: channel, counters: EdgeCounters(),
                progressInterval: interval, logger: log.logger())
            _ = try await items(of: replay, from: channel)
            let reports = log.messages.filter { $0.hasPrefix("info replay: ") }
            if logged {
                // 0.5 s of wall time: a report at least once the gap is waited out, every 100 ms at most.
                #expect(!reports.isEmpty, "\(log.messages)")
                #expect(reports.allSatisfy { $0.contains("% of the capture (") && $0.contains("capture time 2024-01-01 00:00:0") }, "\(reports)")
            } else {
                #expect(reports.isEmpty, "\(reports)")
            }
        }
    }
}
