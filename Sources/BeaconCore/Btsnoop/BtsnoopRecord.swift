/// One btsnoop record, borrowing its bytes from the file.
public struct BtsnoopRecord: Hashable, Sendable {
    /// Where the record's header starts, in bytes from the start of the file.
    public let offset: Int
    /// The packet's length when captured (may exceed ``payload``'s count if the capture truncated it).
    public let originalLength: UInt32
    /// The record flags: direction and command/event bits (1001/1002), or index and opcode (2001).
    public let flags: UInt32
    /// Packets the capturing tool lost since the capture began.
    public let cumulativeDrops: UInt32
    /// When the packet was captured.
    public let timestamp: BtsnoopTimestamp
    /// The included bytes.
    public let payload: ArraySlice<UInt8>
    /// The file's datalink, which says how to read ``flags`` and ``payload``.
    public let datalink: BtsnoopDatalink

    /// For datalink 2001: the monitor opcode (low 16 bits of the flags).
    public var monitorOpcode: MonitorOpcode? {
        datalink == .linuxMonitor ? MonitorOpcode(rawValue: UInt16(truncatingIfNeeded: flags)) : nil
    }

    /// For datalink 2001: the controller index (`hci0` = 0; high 16 bits of the flags, 0xFFFF for
    /// records that belong to no controller).
    public var monitorIndex: UInt16? {
        datalink == .linuxMonitor ? UInt16(truncatingIfNeeded: flags >> 16) : nil
    }

    /// Whether the packet went from host to controller or back, when the record says.
    public var direction: Direction? {
        switch datalink {
        case .hciUnencapsulated, .hciUART:
            return flags & 0x01 == 0 ? .hostToController : .controllerToHost
        case .linuxMonitor:
            switch monitorOpcode {
            case .commandPacket, .aclTxPacket, .scoTxPacket, .isoTxPacket: return .hostToController
            case .eventPacket, .aclRxPacket, .scoRxPacket, .isoRxPacket: return .controllerToHost
            default: return nil
            }
        }
    }

    /// The HCI event in this record, starting at its Event_Code; nil for any other record
    /// (commands, ACL data, monitor notes). Hand it to ``HCIEvent/init(_:)``.
    public var hciEvent: ArraySlice<UInt8>? {
        switch datalink {
        case .hciUART:
            guard payload.first == HCIEvent.h4EventPacketType else { return nil }
            return payload.dropFirst()
        case .hciUnencapsulated:
            return flags & 0x03 == 0x03 ? payload : nil
        case .linuxMonitor:
            return monitorOpcode == .eventPacket ? payload : nil
        }
    }

    /// The direction of a packet on the HCI transport.
    public enum Direction: Sendable, Hashable {
        /// Sent by the host: commands, outgoing data.
        case hostToController
        /// Received from the controller: events, incoming data.
        case controllerToHost
    }
}

/// A Linux monitor opcode (BlueZ `monitor/btsnoop.h`, `BTSNOOP_OPCODE_*`), as a struct so unknown
/// opcodes from newer kernels still read.
public struct MonitorOpcode: RawRepresentable, Hashable, Sendable {
    /// The opcode.
    public let rawValue: UInt16
    /// Wraps an opcode.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// 0: a controller was added.
    public static let newIndex = MonitorOpcode(rawValue: 0)
    /// 1: a controller was removed.
    public static let deleteIndex = MonitorOpcode(rawValue: 1)
    /// 2: HCI command packet.
    public static let commandPacket = MonitorOpcode(rawValue: 2)
    /// 3: HCI event packet (no H4 type byte).
    public static let eventPacket = MonitorOpcode(rawValue: 3)
    /// 4: outgoing ACL data.
    public static let aclTxPacket = MonitorOpcode(rawValue: 4)
    /// 5: incoming ACL data.
    public static let aclRxPacket = MonitorOpcode(rawValue: 5)
    /// 6: outgoing SCO data.
    public static let scoTxPacket = MonitorOpcode(rawValue: 6)
    /// 7: incoming SCO data.
    public static let scoRxPacket = MonitorOpcode(rawValue: 7)
    /// 8: a controller was opened.
    public static let openIndex = MonitorOpcode(rawValue: 8)
    /// 9: a controller was closed.
    public static let closeIndex = MonitorOpcode(rawValue: 9)
    /// 10: controller information (address, manufacturer).
    public static let indexInfo = MonitorOpcode(rawValue: 10)
    /// 11: vendor diagnostics.
    public static let vendorDiagnostic = MonitorOpcode(rawValue: 11)
    /// 12: a system note (text).
    public static let systemNote = MonitorOpcode(rawValue: 12)
    /// 13: user logging (bluetoothd and friends).
    public static let userLogging = MonitorOpcode(rawValue: 13)
    /// 14: a management-channel client opened.
    public static let controlOpen = MonitorOpcode(rawValue: 14)
    /// 15: a management-channel client closed.
    public static let controlClose = MonitorOpcode(rawValue: 15)
    /// 16: a management command.
    public static let controlCommand = MonitorOpcode(rawValue: 16)
    /// 17: a management event.
    public static let controlEvent = MonitorOpcode(rawValue: 17)
    /// 18: outgoing ISO data.
    public static let isoTxPacket = MonitorOpcode(rawValue: 18)
    /// 19: incoming ISO data.
    public static let isoRxPacket = MonitorOpcode(rawValue: 19)
}

/// Reads records one by one without copying. A truncated final record (a capture cut off while
/// being written) throws once, with its offset, after every complete record before it was returned.
public struct BtsnoopRecordIterator {
    private let bytes: ArraySlice<UInt8>
    private var cursor: Int
    private let datalink: BtsnoopDatalink
    private var finished = false

    /// Bytes of a record header.
    static let recordHeaderSize = 24

    init(bytes: ArraySlice<UInt8>, cursor: Int, datalink: BtsnoopDatalink) {
        self.bytes = bytes
        self.cursor = cursor
        self.datalink = datalink
    }

    /// The next record; nil at the end of the file. Throws once on a truncated record, then returns nil.
    public mutating func next() throws(BtsnoopError) -> BtsnoopRecord? {
        guard !finished else { return nil }
        let end = bytes.endIndex
        let start = cursor
        let offset = start - bytes.startIndex
        guard start < end else {
            finished = true
            return nil
        }
        guard end - start >= Self.recordHeaderSize else {
            finished = true
            throw .truncatedRecordHeader(offset: offset, available: end - start)
        }
        let included = Int(bytes.uint32BE(at: start + 4))
        let dataStart = start + Self.recordHeaderSize
        guard end - dataStart >= included else {
            finished = true
            throw .truncatedRecord(offset: offset, includedLength: included, available: end - dataStart)
        }
        cursor = dataStart + included
        return BtsnoopRecord(
            offset: offset,
            originalLength: bytes.uint32BE(at: start),
            flags: bytes.uint32BE(at: start + 8),
            cumulativeDrops: bytes.uint32BE(at: start + 12),
            timestamp: BtsnoopTimestamp(rawValue: Int64(bitPattern: bytes.uintBE(at: start + 16, count: 8))),
            payload: bytes[dataStart..<cursor],
            datalink: datalink)
    }
}
