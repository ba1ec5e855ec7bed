import Testing

@testable import BeaconCore

/// Hand-built btsnoop files: header checks, each datalink's way of marking events, truncation.
@Suite("btsnoop reader")
struct BtsnoopTests {
    static func header(datalink: UInt32, version: UInt32 = 1) -> [UInt8] {
        Array("btsnoop".utf8) + [0] + be32(version) + be32(datalink)
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }

    static func record(_ payload: [UInt8], flags: UInt32, timestamp: Int64 = 0x00E2_8E34_D1C2_F2BD, drops: UInt32 = 0) -> [UInt8] {
        let ts = UInt64(bitPattern: timestamp)
        return be32(UInt32(payload.count)) + be32(UInt32(payload.count)) + be32(flags) + be32(drops)
            + be32(UInt32(ts >> 32)) + be32(UInt32(ts & 0xFFFF_FFFF)) + payload
    }

    /// An LE Advertising Report event (no H4 byte) with one iBeacon report.
    static let advertEvent: [UInt8] = {
        let report = HCIParserTests.legacyReport(data: Fixture.iBeacon())
        let parameters = [0x02, 0x01] + report
        return [0x3E, UInt8(parameters.count)] + parameters
    }()

    static func read(_ bytes: [UInt8]) throws -> (records: [BtsnoopRecord], error: BtsnoopError?) {
        var records: [BtsnoopRecord] = []
        var iterator = try BtsnoopFile(bytes).records
        do {
            while let record = try iterator.next() { records.append(record) }
            return (records, nil)
        } catch {
            #expect(try iterator.next() == nil, "an iterator stops after its error")
            return (records, error)
        }
    }

    @Test("header errors", arguments: [
        (Array("btsnoop".utf8), BtsnoopError.truncatedHeader(available: 7)),
        (Array("btsnooq".utf8) + [0] + be32(1) + be32(1002), .notBtsnoop),
        (header(datalink: 1002, version: 2), .unsupportedVersion(2)),
        (header(datalink: 1003), .unsupportedDatalink(1003)),
    ] as [([UInt8], BtsnoopError)])
    func headers(_ bytes: [UInt8], _ expected: BtsnoopError) {
        #expect(throws: expected) { try BtsnoopFile(bytes) }
    }

    @Test("datalink 1002 (H4): events by packet type, direction from the flags")
    func uart() throws {
        let command: [UInt8] = [0x01, 0x03, 0x0C, 0x00]
        let file = Self.header(datalink: 1002) + Self.record(command, flags: 2) + Self.record([0x04] + Self.advertEvent, flags: 3)
        let (records, error) = try Self.read(file)
        #expect(error == nil)
        try #require(records.count == 2)
        #expect(records[0].hciEvent == nil && records[0].direction == .hostToController)
        #expect(records[1].direction == .controllerToHost && records[1].offset == 16 + 24 + 4)
        let event = try HCIEvent(try #require(records[1].hciEvent))
        var reports = event.advertisingReports()
        #expect(try reports.next()?.firstBeaconFrame?.deviceKey?.description.hasPrefix("ib-E2C56DB5") == true)
        #expect(records[1].timestamp.unixMicroseconds == 0x00E2_8E34_D1C2_F2BD - 0x00DC_DDB3_0F2F_8000)
        #expect(records[1].monitorOpcode == nil && records[1].monitorIndex == nil)
    }

    @Test("datalink 2001 (btmon -w): opcode and index in the flags, events without the H4 byte")
    func monitor() throws {
        let file = Self.header(datalink: 2001)
            + Self.record(Array("Bluetooth".utf8), flags: 0xFFFF_000C)
            + Self.record([0x01, 0x03, 0x0C, 0x00], flags: 0x0000_0002)
            + Self.record(Self.advertEvent, flags: 0x0001_0003, drops: 4)
        let (records, error) = try Self.read(file)
        #expect(error == nil)
        try #require(records.count == 3)
        #expect(records[0].monitorOpcode == .systemNote && records[0].monitorIndex == 0xFFFF && records[0].direction == nil)
        #expect(records[1].monitorOpcode == .commandPacket && records[1].hciEvent == nil && records[1].direction == .hostToController)
        #expect(records[2].monitorOpcode == .eventPacket && records[2].monitorIndex == 1 && records[2].cumulativeDrops == 4)
        #expect(records[2].hciEvent.map(Array.init) == Self.advertEvent)
    }

    @Test("datalink 1001: events marked by flags 0b11")
    func unencapsulated() throws {
        let file = Self.header(datalink: 1001) + Self.record(Self.advertEvent, flags: 3) + Self.record([0x03, 0x0C, 0x00], flags: 2)
        let (records, _) = try Self.read(file)
        #expect(records.map { $0.hciEvent != nil } == [true, false])
    }

    @Test("a truncated final record: the records before it, then the error with its offset")
    func truncated() throws {
        let good = Self.record([0x04] + Self.advertEvent, flags: 3)
        let file = Self.header(datalink: 1002) + good + good
        for cut in [1, 10, good.count - 23, good.count - 24, good.count - 1] {
            let (records, error) = try Self.read(Array(file.dropLast(cut)))
            #expect(records.count == 1)
            let offset = 16 + good.count
            let remaining = good.count - cut
            if remaining < 24 {
                #expect(error == .truncatedRecordHeader(offset: offset, available: remaining))
            } else {
                #expect(error == .truncatedRecord(offset: offset, includedLength: good.count - 24, available: remaining - 24))
            }
        }
        #expect(try Self.read(Self.header(datalink: 1002)).records.isEmpty)
    }

    @Test("a real capture cut mid-record keeps every complete record", .enabled(if: TestData.available, TestData.skipNote))
    func truncatedCapture() throws {
        let bytes = try TestData.bytes("captures/csacca_horizon74_android_legacy/btsnoop_hci.log")
        let (records, error) = try Self.read(Array(bytes.dropLast(3)))
        #expect(records.count == 2571)
        #expect(error.map { if case .truncatedRecord = $0 { true } else { false } } == true)
    }

    @Test("timestamps to Unix time")
    func timestamps() {
        let epoch = BtsnoopTimestamp(rawValue: BtsnoopTimestamp.unixEpochOffset)
        #expect(epoch.unixMicroseconds == 0 && epoch.unixMilliseconds == 0)
        let t = BtsnoopTimestamp(rawValue: 63_780_406_079_789_349)
        #expect(t.unixMicroseconds == 1_612_150_079_789_349)
        #expect(t.unixMilliseconds == 1_612_150_079_789)
        // Before 1970 a time is implausible (see below) and clamps to the epoch.
        #expect(BtsnoopTimestamp(rawValue: BtsnoopTimestamp.unixEpochOffset - 1).unixMilliseconds == 0)
        #expect(epoch < t)
    }

    @Test("a timestamp outside 1970…2112 is implausible, and converting it clamps instead of trapping", arguments: [
        Int64.min, -1, 0, BtsnoopTimestamp.unixEpochOffset - 1, BtsnoopTimestamp.plausibleRange.upperBound + 1, Int64.max,
        Int64(bitPattern: 0x80DC_DDB3_0F2F_8000),  // a corrupt record's: Unix µs would be Int64.min
    ])
    func implausibleTimestamp(_ raw: Int64) {
        let timestamp = BtsnoopTimestamp(rawValue: raw)
        #expect(!timestamp.isPlausible)
        let us = timestamp.unixMicroseconds
        #expect(us == (raw < BtsnoopTimestamp.unixEpochOffset ? 0 : 1 << 52))
        // What the edge then does with it (milliseconds, window arithmetic) stays in range.
        #expect(timestamp.unixMilliseconds == (us >= 0 ? us / 1000 : (us - 999) / 1000))
    }

    @Test("real dates are plausible")
    func plausibleTimestamp() {
        #expect(BtsnoopTimestamp(rawValue: 0x00E2_8E34_D1C2_F2BD).isPlausible)
        #expect(BtsnoopTimestamp(rawValue: BtsnoopTimestamp.unixEpochOffset).unixMicroseconds == 0)
    }
    /// The verdicts of a capture whose records have these times (µs after 2024-01-01; nil: zeroed).
    static func verdicts(_ offsets: [Int64?]) throws -> [BtsnoopTimeline.Verdict] {
        let base = BtsnoopTimestamp.unixEpochOffset + 1_704_067_200_000_000
        let bytes = header(datalink: 1002) + offsets.flatMap { record([0x04] + advertEvent, flags: 1, timestamp: $0.map { base + $0 } ?? 0) }
        var timeline = BtsnoopTimeline(try BtsnoopFile(bytes))
        var verdicts: [BtsnoopTimeline.Verdict] = []
        while let (_, verdict) = try timeline.next() { verdicts.append(verdict) }
        return verdicts
    }

    @Test("a timestamp that leaps away and straight back is a corrupt record; a gap that carries on is real")
    func leaps() throws {
        let minute: Int64 = 60_000_000, year: Int64 = 31_557_600_000_000
        let t: Int64 = 1_704_067_200_000_000
        // Forward by years and back, backward by a day and back: both skipped, the rest kept.
        #expect(try Self.verdicts([0, 1_000, 30 * year, 2_000, -24 * 60 * minute, 3_000]) == [
            .time(t), .time(t + 1_000), .jump, .time(t + 2_000), .jump, .time(t + 3_000)])
        // A capture paused for an hour and resumed: a real gap, kept. So is a leap at either end,
        // where nothing on the other side can vouch for it, and a leap followed by a zeroed record.
        #expect(try Self.verdicts([0, 60 * minute, 60 * minute + 5]) == [.time(t), .time(t + 60 * minute), .time(t + 60 * minute + 5)])
        #expect(try Self.verdicts([30 * year, 0, 5]) == [.time(t + 30 * year), .time(t), .time(t + 5)])
        #expect(try Self.verdicts([0, 5, 30 * year]) == [.time(t), .time(t + 5), .time(t + 30 * year)])
        #expect(try Self.verdicts([0, 30 * year, nil, 10]) == [.time(t), .time(t + 30 * year), .implausible, .time(t + 10)])
        // Reorderings within the bound are a capture tool's, not corruption.
        #expect(try Self.verdicts([0, minute - 1, 1, 2]) == [.time(t), .time(t + minute - 1), .time(t + 1), .time(t + 2)])
    }

    @Test("the timeline yields the records before a truncated one, then its error")
    func timelineTruncated() throws {
        let bytes = Self.header(datalink: 1002) + Self.record([0x04] + Self.advertEvent, flags: 1) + Array(Self.record([0x04] + Self.advertEvent, flags: 1).dropLast(3))
        var timeline = BtsnoopTimeline(try BtsnoopFile(bytes))
        #expect(try timeline.next()?.record.offset == 16)
        #expect(throws: BtsnoopError.self) { _ = try timeline.next() }
        #expect(try timeline.next() == nil)
    }
}
