import Testing

@testable import BeaconCore

/// Hand-built events: every field of both report layouts, and every way an event can lie.
@Suite("HCI event parser")
struct HCIParserTests {
    /// A legacy report: event type, address type, address (written order), data, RSSI byte.
    static func legacyReport(
        type: UInt8 = 0, addressType: UInt8 = 0, address: [UInt8] = [0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF],
        data: [UInt8] = [0x02, 0x01, 0x06], rssi: UInt8 = 0xC5
    ) -> [UInt8] {
        [type, addressType] + address.reversed() + [UInt8(data.count)] + data + [rssi]
    }

    /// An extended report with the given fields (directed when `eventType` bit 2 is set).
    static func extendedReport(
        eventType: UInt16 = 0x0013, addressType: UInt8 = 1, address: [UInt8] = [0x4D, 0xAB, 0x43, 0x2A, 0x3F, 0x10],
        sid: UInt8 = 0xFF, tx: UInt8 = 0x7F, rssi: UInt8 = 0xBC, interval: UInt16 = 0,
        directType: UInt8 = 0, direct: [UInt8] = [0, 0, 0, 0, 0, 0], data: [UInt8] = [0x02, 0x01, 0x06]
    ) -> [UInt8] {
        [UInt8(eventType & 0xFF), UInt8(eventType >> 8), addressType] + address.reversed()
            + [1, 0, sid, tx, rssi, UInt8(interval & 0xFF), UInt8(interval >> 8), directType] + direct.reversed()
            + [UInt8(data.count)] + data
    }

    /// An H4 LE Meta event around `body` (subevent, Num_Reports, reports).
    static func event(_ subevent: UInt8, count: UInt8, _ reports: [UInt8]) -> [UInt8] {
        let parameters = [subevent, count] + reports
        return [0x04, 0x3E, UInt8(parameters.count)] + parameters
    }

    /// All reports of an H4 packet, or the error that stopped the walk (with the reports before it).
    static func parse(_ packet: [UInt8]) -> (reports: [AdvertisingReport], error: HCIParseError?) {
        var reports: [AdvertisingReport] = []
        do {
            var iterator = try HCIEvent(h4Packet: packet[...]).advertisingReports()
            while let report = try iterator.next() { reports.append(report) }
            #expect(try iterator.next() == nil, "an exhausted iterator stays exhausted")
            return (reports, nil)
        } catch {
            return (reports, error)
        }
    }

    @Test("legacy report fields, several reports in one event")
    func legacy() throws {
        let packet = Self.event(
            0x02, count: 2,
            Self.legacyReport(type: 0, rssi: 0xC9)
                + Self.legacyReport(type: 4, addressType: 1, address: [0xC1, 2, 3, 4, 5, 6], data: [], rssi: 127))
        let (reports, error) = Self.parse(packet)
        #expect(error == nil)
        try #require(reports.count == 2)
        #expect(!reports[0].isExtended)
        #expect(reports[0].address.description == "AA:BB:CC:DD:EE:FF")
        #expect(reports[0].rssi == -55)
        #expect(reports[0].data.elementsEqual([0x02, 0x01, 0x06]))
        #expect(reports[0].isConnectable && reports[0].isScannable && !reports[0].isScanResponse)
        #expect(reports[0].offset == 5)
        #expect(reports[0].txPower == nil && reports[0].advertisingSID == nil && reports[0].directAddress == nil)
        #expect(reports[1].eventType == 4 && reports[1].isScanResponse)
        #expect(reports[1].addressType == .random)
        #expect(reports[1].address.randomKind == .staticAddress)
        #expect(reports[1].rssi == nil, "127 means not available")
        #expect(reports[1].data.isEmpty)
        #expect(reports[1].dataStatus == .complete)
    }

    @Test("extended report fields: TX power, SID, PHYs, direct address, data status")
    func extended() throws {
        let directed = Self.extendedReport(
            eventType: 0x0005 | 0x20, addressType: 0, sid: 3, tx: 0xF4, rssi: 127, interval: 0x0640,
            directType: 1, direct: [1, 2, 3, 4, 5, 6], data: [])
        let packet = Self.event(0x0D, count: 2, Self.extendedReport() + directed)
        let (reports, error) = Self.parse(packet)
        #expect(error == nil)
        try #require(reports.count == 2)
        #expect(reports[0].isExtended && reports[0].isLegacyPDU)
        #expect(reports[0].address.text(uppercase: false) == "4d:ab:43:2a:3f:10")
        #expect(reports[0].address.randomKind == .resolvablePrivate)
        #expect(reports[0].txPower == nil && reports[0].rssi == -68)
        #expect(reports[0].advertisingSID == nil && reports[0].directAddress == nil)
        #expect(reports[0].primaryPHY == 1 && reports[0].secondaryPHY == 0)
        #expect(reports[1].isDirected && reports[1].isConnectable && !reports[1].isLegacyPDU)
        #expect(reports[1].txPower == -12 && reports[1].rssi == nil)
        #expect(reports[1].advertisingSID == 3)
        #expect(reports[1].periodicAdvertisingInterval == 0x0640)
        #expect(reports[1].directAddress?.description == "01:02:03:04:05:06")
        #expect(reports[1].directAddressType == .random)
        #expect(reports[1].dataStatus == .incompleteMoreToCome)
    }

    /// Found by fuzz-hci (Tests/BeaconEdgeTests/FuzzFindingTests.swift): a level outside the spec's
    /// range went on the wire, where the aggregator refuses it and the batch that carries it.
    @Test("RSSI and TX power outside -127…20 dBm are not levels", arguments: [
        (UInt8(0x81), Int8?(-127)), (0x14, 20), (0x15, nil), (0x6D, nil), (0x7E, nil), (0x7F, nil), (0x80, nil),
    ])
    func powerRange(byte: UInt8, level: Int8?) throws {
        let legacy = Self.parse(Self.event(0x02, count: 1, Self.legacyReport(rssi: byte))).reports
        let extended = Self.parse(Self.event(0x0D, count: 1, Self.extendedReport(tx: byte, rssi: byte))).reports
        try #require(legacy.count == 1 && extended.count == 1)
        #expect(legacy[0].rssi == level)
        #expect(extended[0].rssi == level && extended[0].txPower == level)
    }

    @Test("events without advertising reports yield none")
    func otherEvents() throws {
        // Command Complete for HCI_Reset; LE Meta with another subevent; LE Meta with no parameters.
        for packet: [UInt8] in [[0x04, 0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00], [0x04, 0x3E, 0x02, 0x12, 0x00], [0x04, 0x3E, 0x00]] {
            let (reports, error) = Self.parse(packet)
            #expect(reports.isEmpty && error == nil)
        }
        let bare = try HCIEvent([0x0E, 0x04, 0x01, 0x03, 0x0C, 0x00][...])
        #expect(bare.code == 0x0E && bare.leSubeventCode == nil && bare.parameters.count == 4)
    }

    @Test("malformed events throw typed errors with the offset at fault", arguments: [
        // Empty packet, wrong H4 type, header cut short.
        ([], HCIParseError.truncated(field: .packetType, offset: 0, needed: 1, available: 0)),
        ([0x02, 0x00], .notAnEvent(packetType: 0x02)),
        ([0x04, 0x3E], .truncated(field: .eventHeader, offset: 1, needed: 2, available: 1)),
        // Parameter length longer and shorter than the bytes.
        ([0x04, 0x3E, 0x05, 0x02, 0x01], .parameterLengthMismatch(declared: 5, actual: 2, offset: 2)),
        ([0x04, 0x3E, 0x01, 0x02, 0x01], .parameterLengthMismatch(declared: 1, actual: 2, offset: 2)),
        // Advertising subevent without Num_Reports.
        ([0x04, 0x3E, 0x01, 0x02], .truncated(field: .numReports, offset: 4, needed: 1, available: 0)),
    ] as [([UInt8], HCIParseError)])
    func malformedHeaders(_ packet: [UInt8], _ expected: HCIParseError) {
        let (reports, error) = Self.parse(packet)
        #expect(reports.isEmpty)
        #expect(error == expected)
        #expect(error.map { $0.offset <= packet.count } ?? false)
    }

    @Test("a lying report count: too few reports, or a huge Num_Reports")
    func countLies() {
        let one = Self.legacyReport()
        let (reports, error) = Self.parse(Self.event(0x02, count: 3, one))
        #expect(reports.count == 1, "the good report before the lie is delivered")
        #expect(error == .reportCountMismatch(declared: 3, found: 1, offset: 5 + one.count))

        let (none, huge) = Self.parse(Self.event(0x0D, count: 255, []))
        #expect(none.isEmpty)
        #expect(huge == .reportCountMismatch(declared: 255, found: 0, offset: 5))

        let (_, short) = Self.parse(Self.event(0x02, count: 0, one))
        #expect(short == .trailingBytes(offset: 5, count: one.count))
    }

    @Test("truncated reports name the field")
    func truncatedReports() {
        var report = Self.legacyReport(data: [1, 2, 3, 4])
        // Data_Length says 4, but the event ends after 2 data bytes.
        let cut = Self.event(0x02, count: 1, Array(report.prefix(11)))
        #expect(Self.parse(cut).error == .truncated(field: .reportData, offset: 14, needed: 4, available: 2))
        // Everything but the RSSI.
        report.removeLast()
        #expect(Self.parse(Self.event(0x02, count: 1, report)).error == .truncated(field: .rssi, offset: 18, needed: 1, available: 0))
        // A legacy header cut inside the address.
        #expect(Self.parse(Self.event(0x02, count: 1, [0, 0, 1, 2])).error == .truncated(field: .reportHeader, offset: 5, needed: 9, available: 4))
        // An extended header cut short, and extended data overrunning the event.
        let ext = Self.extendedReport(data: [1, 2, 3])
        #expect(Self.parse(Self.event(0x0D, count: 1, Array(ext.prefix(20)))).error == .truncated(field: .reportHeader, offset: 5, needed: 24, available: 20))
        #expect(Self.parse(Self.event(0x0D, count: 1, Array(ext.dropLast()))).error == .truncated(field: .reportData, offset: 29, needed: 3, available: 2))
        // A data length of 255 in a short event.
        var long = Self.legacyReport(data: [])
        long[8] = 255
        #expect(Self.parse(Self.event(0x02, count: 1, long)).error == .truncated(field: .reportData, offset: 14, needed: 255, available: 1))
    }

    @Test("error descriptions carry offset and field")
    func descriptions() {
        let error = HCIParseError.truncated(field: .rssi, offset: 18, needed: 1, available: 0)
        #expect(error.description == "HCI event truncated in RSSI at byte 18: needs 1 bytes, 0 left")
        #expect(HCIParseError.notAnEvent(packetType: 2).description.contains("0x2"))
    }

    @Test("addresses and address types")
    func addresses() throws {
        let address = try #require(BluetoothAddress("a4:c1:38:bf:6f:ab"))
        #expect(address.rawValue == 0xA4C1_38BF_6FAB)
        #expect(address.description == "A4:C1:38:BF:6F:AB")
        #expect(BluetoothAddress("A4C138BF6FAB") == address)
        #expect(BluetoothAddress("a4:c1:38:bf:6f") == nil)
        #expect(BluetoothAddress("a4:c1:38:bf:6f:ag") == nil)
        #expect(BluetoothAddress("a4.c1.38.bf.6f.ab") == nil)
        #expect(BluetoothAddress(rawValue: 1 << 48) == nil)
        #expect(address.isStableIdentity(as: .public))
        #expect(address.isStableIdentity(as: .publicIdentity))
        #expect(BluetoothAddress("C1:00:00:00:00:01")!.isStableIdentity(as: .random))
        #expect(!BluetoothAddress("41:00:00:00:00:01")!.isStableIdentity(as: .random))
        #expect(!BluetoothAddress("01:00:00:00:00:01")!.isStableIdentity(as: .random))
        #expect(!BluetoothAddress("81:00:00:00:00:01")!.isStableIdentity(as: .random))
        #expect(!address.isStableIdentity(as: .anonymous))
        #expect(AddressType(rawValue: 7).description == "address-type-0x7")
    }
}
