import BeaconCore
import BeaconEdge
import BeaconWire
import Testing

/// Decode → filter → batch over real captures and hand-made events: what is published, what is
/// filtered, what is malformed.
@Suite("Report pipeline")
struct PipelineTests {
    func run(_ packets: [HCIPacket], allow: AllowList, window: Int = 1000) -> (batches: [SealedBatch], counts: PipelineCounts) {
        var pipeline = ReportPipeline(allowList: allow, batcher: Batcher(gateway: testGateway, windowMilliseconds: window))
        var sealed: [SealedBatch] = []
        for packet in packets { pipeline.consume(.packet(packet)) { sealed.append($0) } }
        pipeline.finish { sealed.append($0) }
        return (sealed, pipeline.takeCounts())
    }

    /// Every advert is exactly one of malformed, filtered or sighted (when every event parses).
    func balanced(_ counts: PipelineCounts) -> Bool {
        counts.reports == counts.sightings + counts.filtered + counts.malformed
    }

    /// Extended-report packets `spacing` µs apart from 2024-01-01.
    func timed(_ events: [[UInt8]], spacing: Int64 = 1000) -> [HCIPacket] {
        events.enumerated().map { HCIPacket(event: $0.element[...], time: 1_704_067_200_000_000 + Int64($0.offset) * spacing) }
    }

    @Test("the csacca capture: the 11 iBeacon frames of the allowed UUID, nothing else", .enabled(if: TestData.available, TestData.skipNote))
    func csaccaAllowList() throws {
        let file = try BtsnoopFile(try TestData.bytes(TestData.csacca))
        let (sealed, counts) = run(try packets(of: file), allow: AllowList(iBeaconUUIDs: [csaccaUUID]))
        let sightings = try decoded(sealed).flatMap(\.sightings)
        #expect(counts.reports == 412)
        #expect(counts.malformed == 0)
        #expect(sightings.count == 11)
        #expect(counts.filtered == 401)
        #expect(Set(sightings.map(\.device.rawValue)) == [
            "ib-494E5445-4C4C-495F-524F-434B535F4857-20594-62207", "ib-494E5445-4C4C-495F-524F-434B535F4857-20597-62207",
        ])
        #expect(sightings.allSatisfy { $0.txPower == -62 })
        // Sequence numbers are contiguous from 0, one batch per window of the capture.
        #expect(sealed.map(\.sequence) == Array(0..<UInt64(sealed.count)))
    }

    @Test("another UUID on the list publishes nothing from that capture, heartbeats only", .enabled(if: TestData.available, TestData.skipNote))
    func strangers() throws {
        let file = try BtsnoopFile(try TestData.bytes(TestData.csacca))
        let (sealed, counts) = run(try packets(of: file), allow: AllowList(iBeaconUUIDs: [UUID128("E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")!]))
        #expect(counts.filtered == 412)
        #expect(!sealed.isEmpty && sealed.allSatisfy { $0.sightings == 0 })
    }

    @Test("allow_all publishes every report with an identity (beacon or stable address)", .enabled(if: TestData.available, TestData.skipNote))
    func allowAll() throws {
        let file = try BtsnoopFile(try TestData.bytes(TestData.csacca))
        let (sealed, counts) = run(try packets(of: file), allow: .everything)
        #expect(counts.reports == 412)
        #expect(counts.sightings + counts.filtered + counts.malformed == 412)
        #expect(sealed.reduce(0) { $0 + $1.sightings } == Int(counts.sightings))
        #expect(counts.sightings == 176)
    }

    @Test("extended reports (datalink 1002, subevent 0x0D) go through the same path", .enabled(if: TestData.available, TestData.skipNote))
    func extended() throws {
        let file = try BtsnoopFile(try TestData.bytes(TestData.androidExtended))
        let (_, counts) = run(try packets(of: file), allow: .everything)
        #expect(counts.reports == 12)
        // One random (rotating) address, no beacon frame: no identity, so nothing is published.
        #expect(counts.filtered == 12)
    }

    @Test("a btmon capture (datalink 2001) replays without reports or errors", .enabled(if: TestData.available, TestData.skipNote))
    func btmon() throws {
        let file = try BtsnoopFile(try TestData.bytes(TestData.btmon))
        #expect(file.datalink == .linuxMonitor)
        let (_, counts) = run(try packets(of: file), allow: .everything)
        #expect(counts.reports == 0 && counts.malformed == 0)
    }

    @Test("malformed events and adverts are counted and skipped; the good ones around them still count")
    func malformed() throws {
        let good = legacyEvent(data: iBeaconData(csaccaUUID, major: 5, minor: 6))
        var truncated = good
        truncated.removeLast(4)
        truncated[1] = UInt8(truncated.count - 2)  // consistent header, report cut short
        let badLength = [0x3E, 0x09] + Array(good[2...])  // Parameter_Total_Length disagrees
        let overrun = legacyEvent(data: [0x02, 0x01, 0x06, 0x1F, 0xFF, 0x4C])  // AD length past the end
        let noRSSI = legacyEvent(rssi: 127, data: iBeaconData(csaccaUUID, major: 5, minor: 6))
        let t: Int64 = 1_704_067_200_000_000
        let packets = [good, truncated, badLength, overrun, noRSSI, good].enumerated().map {
            HCIPacket(event: $0.element[...], time: t + Int64($0.offset))
        }
        let (sealed, counts) = run(packets, allow: AllowList(iBeaconUUIDs: [csaccaUUID]))
        #expect(counts.reports == 4)  // good, overrun, noRSSI, good
        #expect(counts.malformed == 3)  // truncated, badLength, overrun
        #expect(counts.filtered == 1)  // no RSSI
        #expect(try decoded(sealed).flatMap(\.sightings).map(\.device.rawValue) == Array(repeating: "ib-494E5445-4C4C-495F-524F-434B535F4857-5-6", count: 2))
    }

    /// A public address (its last byte first, as on the air) and a resolvable private one.
    static let publicAddress: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0x11]
    static let privateAddress: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0x51]

    @Test("an extended advert split over reports is joined: one sighting of its iBeacon, nothing malformed, other adverts in between unharmed")
    func fragments() throws {
        let data = iBeaconData(csaccaUUID, major: 7, minor: 8)
        let t: Int64 = 1_704_067_200_000_000
        let events = [
            extendedEvent([(Self.publicAddress, 0, 1, 3, Array(data[..<12]))]),
            // Another advertiser's whole advert between the two parts.
            legacyEvent(data: iBeaconData(csaccaUUID, major: 1, minor: 2)),
            extendedEvent([(Self.publicAddress, 0, 0, 3, Array(data[12...]))]),
        ]
        let (sealed, counts) = run(events.enumerated().map { HCIPacket(event: $0.element[...], time: t + Int64($0.offset) * 1000) }, allow: .everything)
        #expect(counts.reports == 2, "two adverts, one of them in two parts")
        #expect(counts.malformed == 0)
        #expect(balanced(counts))
        let sightings = try decoded(sealed).flatMap(\.sightings)
        #expect(sightings.map(\.device.rawValue) == ["ib-494E5445-4C4C-495F-524F-434B535F4857-1-2", "ib-494E5445-4C4C-495F-524F-434B535F4857-7-8"])
        #expect(sightings.map(\.txPower) == [-59, -59])
    }

    @Test("a truncated extended advert (the controller lost its end) is not malformed: a stable address is still sighted")
    func truncatedAdvert() throws {
        let data = iBeaconData(csaccaUUID, major: 7, minor: 8)
        let event = extendedEvent([(Self.publicAddress, 0, 2, 3, Array(data[..<12]))])
        let (sealed, counts) = run([HCIPacket(event: event[...], time: 1_704_067_200_000_000)], allow: .everything)
        #expect(counts.malformed == 0)
        #expect(try decoded(sealed).flatMap(\.sightings).map(\.device.rawValue) == ["mac-11:22:33:44:55:66"])
    }

    @Test("a start whose continuation never came is not joined to a later advert of the same set")
    func staleFragment() throws {
        let data = iBeaconData(csaccaUUID, major: 7, minor: 8)
        let t: Int64 = 1_704_067_200_000_000
        let events = [
            (extendedEvent([(Self.publicAddress, 0, 1, 3, Array(data[..<12]))]), t),
            (extendedEvent([(Self.publicAddress, 0, 0, 3, Array(data[12...]))]), t + 5_000_000),
        ]
        let (sealed, counts) = run(events.map { HCIPacket(event: $0.0[...], time: $0.1) }, allow: .everything, window: 10_000)
        // The start is given up and the late second part alone starts inside an AD structure:
        // two malformed adverts, and no iBeacon.
        #expect(counts.malformed == 2)
        #expect(balanced(counts))
        #expect(try decoded(sealed).flatMap(\.sightings).isEmpty)
    }

    @Test("parts of two advertisers, and of two advertising sets of one, interleave and are still joined each to its own")
    func interleaved() throws {
        let a = iBeaconData(csaccaUUID, major: 1, minor: 1), b = iBeaconData(csaccaUUID, major: 2, minor: 2)
        let c = iBeaconData(csaccaUUID, major: 3, minor: 3)
        let other: [UInt8] = [0x66, 0x55, 0x44, 0x33, 0x22, 0x12]
        let (sealed, counts) = run(timed([
            extendedEvent([(Self.publicAddress, 0, 1, 1, Array(a[..<10])), (other, 0, 1, 1, Array(b[..<20]))]),
            extendedEvent([(Self.publicAddress, 0, 1, 2, Array(c[..<5]))]),
            extendedEvent([(other, 0, 0, 1, Array(b[20...])), (Self.publicAddress, 0, 0, 2, Array(c[5...]))]),
            extendedEvent([(Self.publicAddress, 0, 0, 1, Array(a[10...]))]),
        ]), allow: .everything)
        #expect(counts.reports == 3 && counts.malformed == 0 && balanced(counts))
        #expect(try decoded(sealed).flatMap(\.sightings).map(\.device.rawValue).sorted() == [1, 2, 3].map { "ib-494E5445-4C4C-495F-524F-434B535F4857-\($0)-\($0)" })
    }

    @Test("a legacy advert reported through the extended commands is whole, never joined to a pending start")
    func legacyInExtended() throws {
        let start = iBeaconData(csaccaUUID, major: 9, minor: 9)
        let (sealed, counts) = run(timed([
            extendedEvent([(Self.publicAddress, 0, 1, 0xFF, Array(start[..<12]))]),
            extendedEvent([(Self.publicAddress, 0, 0, 0xFF, iBeaconData(csaccaUUID, major: 7, minor: 8))], legacy: true),
        ]), allow: .everything)
        #expect(try decoded(sealed).flatMap(\.sightings).map(\.device.rawValue) == ["ib-494E5445-4C4C-495F-524F-434B535F4857-7-8"])
        #expect(counts.reports == 1 && balanced(counts), "the start is still pending: not counted yet")
    }

    @Test("anonymous adverts are not joined (two such advertisers could not be told apart)")
    func anonymousParts() throws {
        let data = iBeaconData(csaccaUUID, major: 7, minor: 8)
        let none: [UInt8] = [0, 0, 0, 0, 0, 0]
        let (sealed, counts) = run(timed([
            extendedEvent([(none, 0xFF, 1, 3, Array(data[..<12]))]),
            extendedEvent([(none, 0xFF, 0, 3, Array(data[12...]))]),
        ]), allow: .everything)
        #expect(try decoded(sealed).flatMap(\.sightings).isEmpty)
        #expect(counts.reports == 2 && counts.malformed == 2 && balanced(counts))
    }

    @Test("more advertisers mid-advert than there is room for: the stalest start is given up and counted")
    func evicted() throws {
        let data = iBeaconData(csaccaUUID, major: 7, minor: 8)
        let advertisers = (0...64).map { i -> [UInt8] in [UInt8(i), 0x55, 0x44, 0x33, 0x22, 0x11] }
        let starts = advertisers.map { extendedEvent([($0, 0, 1, 3, Array(data[..<12]))]) }
        let ends = advertisers.map { extendedEvent([($0, 0, 0, 3, Array(data[12...]))]) }
        let (sealed, counts) = run(timed(starts + ends), allow: .everything)
        // The first start made room for the 65th; its end alone is malformed.
        #expect(try decoded(sealed).flatMap(\.sightings).count == 64)
        #expect(counts.reports == 66 && counts.malformed == 2 && balanced(counts))
    }

    @Test("an advert with an Eddystone-TLM ahead of an iBeacon is keyed by the iBeacon, even from a private address")
    func keyFrame() throws {
        let tlm: [UInt8] = [0x11, 0x16, 0xAA, 0xFE, 0x20, 0x00, 0x0B, 0xB8, 0x19, 0x00, 0, 0, 0, 0x10, 0, 0, 0, 0x20]
        let data = tlm + Array(iBeaconData(csaccaUUID, major: 7, minor: 8)[3...])
        let event = extendedEvent([(Self.privateAddress, 1, 0, 0xFF, data)])
        let (sealed, counts) = run([HCIPacket(event: event[...], time: 1_704_067_200_000_000)], allow: .everything)
        #expect(counts.malformed == 0 && counts.filtered == 0)
        let sightings = try decoded(sealed).flatMap(\.sightings)
        #expect(sightings.map(\.device.rawValue) == ["ib-494E5445-4C4C-495F-524F-434B535F4857-7-8"])
        #expect(sightings.map(\.txPower) == [-59])
    }

    @Test("a private (rotating) address without a beacon frame is never a device, even with allow_all")
    func privateAddress() throws {
        let phone = legacyEvent(address: [1, 2, 3, 4, 5, 0x46], addressType: 1, data: [0x02, 0x01, 0x1A])  // 01xxxxxx: resolvable
        let (sealed, counts) = run([HCIPacket(event: phone[...], time: 1_704_067_200_000_000)], allow: .everything)
        #expect(counts.filtered == 1)
        #expect(sealed.map(\.sightings) == [0])
    }

    @Test("decode's JSON lines: the csacca iBeacons with uppercase UUIDs", .enabled(if: TestData.available, TestData.skipNote))
    func description() throws {
        let file = try BtsnoopFile(try TestData.bytes(TestData.csacca))
        var lines: [JSONValue] = []
        for packet in try packets(of: file) {
            guard let event = try? HCIEvent(packet.event) else { continue }
            var reports = event.advertisingReports()
            while let report = try reports.next() { lines.append(ReportDescription.json(report, time: packet.time)) }
        }
        #expect(lines.count == 412)
        let beacons = lines.filter { $0["kind"] == .string("ibeacon") }
        #expect(beacons.count == 11)
        let first = try #require(beacons.first)
        #expect(first["uuid"] == .string("494E5445-4C4C-495F-524F-434B535F4857"))
        #expect(first["major"] == .int(20594) && first["minor"] == .int(62207) && first["tx"] == .int(-62))
        #expect(first["addr"] == .string("A4:C1:38:BF:6F:AB") && first["rssi"] == .int(-49) && first["event_type"] == .int(4))
        #expect(first["t"] == .int(1_612_150_079_789))
        #expect(lines.allSatisfy { $0["kind"] != nil && $0["addr_type"] != nil })
        // One compact line each.
        #expect(!first.serialized().contains("\n"))
    }
}
