/// One complete HCI event packet: Event_Code, Parameter_Total_Length and the parameters.
///
/// Construction checks only the header; ``advertisingReports()`` then walks LE advertising reports
/// without copying. Bytes are borrowed from the caller's array slice (a BlueZ socket read copied
/// into an array, or a btsnoop record), so building an event allocates nothing.
public struct HCIEvent: Hashable, Sendable {
    /// Event_Code: 0x3E for LE Meta events, which carry advertising reports.
    public let code: UInt8
    /// The event parameters (Parameter_Total_Length bytes).
    public let parameters: ArraySlice<UInt8>
    /// The absolute index that error offsets count from: the first byte handed to the initialiser.
    let origin: Int

    /// Event_Code of the LE Meta event.
    public static let leMetaEventCode: UInt8 = 0x3E
    /// LE Meta subevent: LE Advertising Report (legacy PDUs).
    public static let leAdvertisingReport: UInt8 = 0x02
    /// LE Meta subevent: LE Extended Advertising Report.
    public static let leExtendedAdvertisingReport: UInt8 = 0x0D
    /// The H4 (UART transport) packet-type byte of an event packet.
    public static let h4EventPacketType: UInt8 = 0x04

    /// Parses an event that starts at its Event_Code (what the Linux monitor channel and btsnoop
    /// datalink 1001 carry). The parameter length must match the bytes given exactly.
    public init(_ packet: ArraySlice<UInt8>) throws(HCIParseError) {
        try self.init(packet, start: packet.startIndex, origin: packet.startIndex)
    }

    /// Parses an event that starts with the H4 packet-type byte 0x04 (what a BlueZ raw HCI socket
    /// returns and btsnoop datalink 1002 records).
    public init(h4Packet packet: ArraySlice<UInt8>) throws(HCIParseError) {
        guard let type = packet.first else {
            throw .truncated(field: .packetType, offset: 0, needed: 1, available: 0)
        }
        guard type == Self.h4EventPacketType else { throw .notAnEvent(packetType: type) }
        try self.init(packet, start: packet.startIndex + 1, origin: packet.startIndex)
    }

    /// Reads the header at absolute index `start` of `packet`; error offsets count from `origin`.
    private init(_ packet: ArraySlice<UInt8>, start: Int, origin: Int) throws(HCIParseError) {
        let available = packet.endIndex - start
        guard available >= 2 else {
            throw .truncated(field: .eventHeader, offset: start - origin, needed: 2, available: available)
        }
        let declared = Int(packet[start + 1])
        let actual = available - 2
        guard declared == actual else {
            throw .parameterLengthMismatch(declared: declared, actual: actual, offset: start + 1 - origin)
        }
        self.code = packet[start]
        self.parameters = packet[(start + 2)...]
        self.origin = origin
    }

    /// The LE Meta Subevent_Code, or nil when this is not an LE Meta event (or has no parameters).
    public var leSubeventCode: UInt8? {
        code == Self.leMetaEventCode ? parameters.first : nil
    }

    /// The advertising reports in this event, legacy or extended; empty for any other event.
    ///
    /// Use it as `var reports = event.advertisingReports(); while let report = try reports.next() {…}`.
    /// Reports before a malformed one are delivered; the malformed one throws. `consuming` lets
    /// `try HCIEvent(h4Packet: bytes).advertisingReports()` hand its bytes over without a copy.
    public consuming func advertisingReports() -> AdvertisingReportIterator {
        AdvertisingReportIterator(parameters: parameters, origin: origin, subevent: leSubeventCode)
    }
}

/// Walks the reports of one LE advertising event without copying or allocating.
///
/// Layout follows BlueZ and the Linux kernel (`hci_le_adv_report_evt`), which read reports one
/// after another — each report's fields together, the legacy RSSI after its data — rather than the
/// field-by-field arrays older Core spec versions drew. Controllers that batch reports (Broadcom
/// chips in Android snoop logs do) send them this way; the captures in the tests confirm it.
public struct AdvertisingReportIterator {
    private let bytes: ArraySlice<UInt8>
    private let origin: Int
    private var cursor: Int
    private var declared: Int
    private var found = 0
    private let extended: Bool
    private var finished: Bool

    /// Fixed bytes before a legacy report's data: Event_Type, Address_Type, Address, Data_Length.
    private static let legacyHeader = 9
    /// Fixed bytes before an extended report's data, up to and including Data_Length.
    private static let extendedHeader = 24

    init(parameters: ArraySlice<UInt8>, origin: Int, subevent: UInt8?) {
        self.bytes = parameters
        self.origin = origin
        self.extended = subevent == HCIEvent.leExtendedAdvertisingReport
        self.finished = !(subevent == HCIEvent.leAdvertisingReport || extended)
        self.cursor = parameters.startIndex + 1
        self.declared = 0
        if !finished {
            if cursor < parameters.endIndex {
                declared = Int(parameters[cursor])
                cursor += 1
            } else {
                declared = -1  // reported by the first next(): Num_Reports is missing
            }
        }
    }

    /// The next report; nil after the last. Throws once when the event is malformed, then returns nil.
    public mutating func next() throws(HCIParseError) -> AdvertisingReport? {
        guard !finished else { return nil }
        let end = bytes.endIndex
        if declared < 0 {
            finished = true
            throw .truncated(field: .numReports, offset: cursor - origin, needed: 1, available: 0)
        }
        if found == declared {
            finished = true
            if cursor != end { throw .trailingBytes(offset: cursor - origin, count: end - cursor) }
            return nil
        }
        if cursor == end {
            finished = true
            throw .reportCountMismatch(declared: declared, found: found, offset: cursor - origin)
        }
        found += 1
        if extended { return try extendedReport(at: cursor) }
        return try legacyReport(at: cursor)
    }

    /// Checks that `needed` bytes follow `index`, naming `field` when they do not (and ending the
    /// walk: one error per event).
    @inline(__always)
    private mutating func require(_ needed: Int, at index: Int, for field: HCIField) throws(HCIParseError) {
        let available = bytes.endIndex - index
        guard available >= needed else {
            finished = true
            throw .truncated(field: field, offset: index - origin, needed: needed, available: available)
        }
    }

    /// Event_Type(1) Address_Type(1) Address(6) Data_Length(1) Data(n) RSSI(1).
    private mutating func legacyReport(at start: Int) throws(HCIParseError) -> AdvertisingReport {
        try require(Self.legacyHeader, at: start, for: .reportHeader)
        let dataLength = Int(bytes[start + 8])
        let dataStart = start + Self.legacyHeader
        try require(dataLength, at: dataStart, for: .reportData)
        let rssiIndex = dataStart + dataLength
        try require(1, at: rssiIndex, for: .rssi)
        cursor = rssiIndex + 1
        let rssi = bytes.int8(at: rssiIndex)
        return AdvertisingReport(
            isExtended: false,
            eventType: UInt16(bytes[start]),
            addressType: AddressType(rawValue: bytes[start + 1]),
            address: BluetoothAddress(littleEndianAt: start + 2, in: bytes),
            rssi: AdvertisingReport.power(rssi),
            txPower: nil,
            primaryPHY: 1,
            secondaryPHY: 0,
            advertisingSID: nil,
            periodicAdvertisingInterval: 0,
            directAddress: nil,
            directAddressType: nil,
            data: bytes[dataStart..<rssiIndex],
            offset: start - origin)
    }

    /// Event_Type(2) Address_Type(1) Address(6) Primary_PHY(1) Secondary_PHY(1) Advertising_SID(1)
    /// TX_Power(1) RSSI(1) Periodic_Advertising_Interval(2) Direct_Address_Type(1)
    /// Direct_Address(6) Data_Length(1) Data(n) — Core spec Vol 4 Part E §7.7.65.13.
    private mutating func extendedReport(at start: Int) throws(HCIParseError) -> AdvertisingReport {
        try require(Self.extendedHeader, at: start, for: .reportHeader)
        let dataLength = Int(bytes[start + 23])
        let dataStart = start + Self.extendedHeader
        try require(dataLength, at: dataStart, for: .reportData)
        cursor = dataStart + dataLength
        let eventType = bytes.uint16LE(at: start)
        let sid = bytes[start + 11]
        let tx = bytes.int8(at: start + 12)
        let rssi = bytes.int8(at: start + 13)
        let directed = eventType & 0x04 != 0
        return AdvertisingReport(
            isExtended: true,
            eventType: eventType,
            addressType: AddressType(rawValue: bytes[start + 2]),
            address: BluetoothAddress(littleEndianAt: start + 3, in: bytes),
            rssi: AdvertisingReport.power(rssi),
            txPower: AdvertisingReport.power(tx),
            primaryPHY: bytes[start + 9],
            secondaryPHY: bytes[start + 10],
            advertisingSID: sid == 0xFF ? nil : sid,
            periodicAdvertisingInterval: bytes.uint16LE(at: start + 14),
            directAddress: directed ? BluetoothAddress(littleEndianAt: start + 17, in: bytes) : nil,
            directAddressType: directed ? AddressType(rawValue: bytes[start + 16]) : nil,
            data: bytes[dataStart..<cursor],
            offset: start - origin)
    }
}
