/// A btsnoop capture held in memory: Android's HCI snoop log (datalink 1002, H4) or what
/// `btmon -w` writes on a BlueZ gateway (datalink 2001, Linux monitor).
///
/// Format (all integers big-endian): a 16-byte header — `btsnoop\0`, version 1, datalink — then
/// records of original length, included length, flags, cumulative drops (4 bytes each), a
/// timestamp (8 bytes, µs since 0000-01-01 00:00 UTC) and the included bytes.
///
/// Reading borrows the bytes: records are slices of ``bytes``, nothing is copied.
public struct BtsnoopFile: Sendable {
    /// The whole file.
    public let bytes: ArraySlice<UInt8>
    /// The format version (always 1).
    public let version: UInt32
    /// What the records hold.
    public let datalink: BtsnoopDatalink

    /// The header's identification pattern.
    static let magic: [UInt8] = Array("btsnoop".utf8) + [0]
    /// Header size in bytes.
    static let headerSize = 16

    /// Checks the header; throws when this is not a btsnoop version 1 file of a supported datalink.
    public init(_ bytes: ArraySlice<UInt8>) throws(BtsnoopError) {
        guard bytes.count >= Self.headerSize else { throw .truncatedHeader(available: bytes.count) }
        let s = bytes.startIndex
        guard bytes[s..<(s + 8)].elementsEqual(Self.magic) else { throw .notBtsnoop }
        let version = bytes.uint32BE(at: s + 8)
        guard version == 1 else { throw .unsupportedVersion(version) }
        let raw = bytes.uint32BE(at: s + 12)
        guard let datalink = BtsnoopDatalink(rawValue: raw) else { throw .unsupportedDatalink(raw) }
        self.bytes = bytes
        self.version = version
        self.datalink = datalink
    }

    /// Checks the header of a file held in an array.
    public init(_ bytes: [UInt8]) throws(BtsnoopError) { try self.init(bytes[...]) }

    /// The records, in file order. Use as `var records = file.records; while let r = try records.next() {…}`.
    public var records: BtsnoopRecordIterator {
        BtsnoopRecordIterator(bytes: bytes, cursor: bytes.startIndex + Self.headerSize, datalink: datalink)
    }
}

/// The datalinks this reader understands.
public enum BtsnoopDatalink: UInt32, Sendable, Hashable {
    /// 1001: HCI packets without a type byte; the record flags say command/event and direction.
    case hciUnencapsulated = 1001
    /// 1002: HCI UART (H4): the first byte is the packet type (0x04 = event). Android writes this.
    case hciUART = 1002
    /// 2001: Linux monitor (`btmon -w`): the flags carry the controller index and an opcode.
    case linuxMonitor = 2001
}

/// Why a btsnoop file or record could not be read. Offsets count from the start of the file.
public enum BtsnoopError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Fewer than the 16 header bytes.
    case truncatedHeader(available: Int)
    /// The identification pattern is not `btsnoop\0`.
    case notBtsnoop
    /// A version other than 1.
    case unsupportedVersion(UInt32)
    /// A datalink other than 1001, 1002 or 2001 (e.g. 1003 BCSP, 1004 three-wire UART).
    case unsupportedDatalink(UInt32)
    /// The file ends inside the 24-byte header of the record at `offset`.
    case truncatedRecordHeader(offset: Int, available: Int)
    /// The record at `offset` declares `includedLength` bytes of data but the file ends after `available`.
    case truncatedRecord(offset: Int, includedLength: Int, available: Int)

    /// One line for logs, with the offset and lengths involved.
    public var description: String {
        switch self {
        case .truncatedHeader(let available):
            return "btsnoop header truncated: \(available) of 16 bytes"
        case .notBtsnoop:
            return "not a btsnoop file: the first 8 bytes are not \"btsnoop\\0\""
        case .unsupportedVersion(let version):
            return "btsnoop version \(version) is not supported (only 1)"
        case .unsupportedDatalink(let datalink):
            return "btsnoop datalink \(datalink) is not supported (1001, 1002, 2001)"
        case .truncatedRecordHeader(let offset, let available):
            return "btsnoop record header at byte \(offset) truncated: \(available) of 24 bytes"
        case .truncatedRecord(let offset, let included, let available):
            return "btsnoop record at byte \(offset) declares \(included) bytes, only \(available) remain"
        }
    }
}

/// A btsnoop timestamp: microseconds since 0000-01-01 00:00 UTC (the "0 AD" epoch of the format).
public struct BtsnoopTimestamp: RawRepresentable, Hashable, Sendable, Comparable {
    /// Microseconds since 0000-01-01 00:00 UTC, as recorded.
    public let rawValue: Int64

    /// Wraps a recorded value.
    public init(rawValue: Int64) { self.rawValue = rawValue }

    /// Microseconds between the btsnoop epoch and the Unix epoch: 0x00DCDDB30F2F8000.
    public static let unixEpochOffset: Int64 = 0x00DC_DDB3_0F2F_8000

    /// The recorded values a real capture holds: from the Unix epoch to 2^52 µs (142 years) past
    /// it. Android and BlueZ (`btmon`) write wall-clock time; anything else — zeroed bytes (0 AD),
    /// a negative value, a date centuries ahead — is a corrupt record, and times that far out
    /// would overflow the arithmetic done with them or, as a capture's first record, shift a
    /// rebased replay by millennia.
    public static let plausibleRange: ClosedRange<Int64> = unixEpochOffset...(unixEpochOffset + (1 << 52))

    /// Whether the recorded value is within ``plausibleRange``; check it before trusting a record's time.
    public var isPlausible: Bool { Self.plausibleRange.contains(rawValue) }

    /// Microseconds since 1970-01-01 00:00 UTC; an implausible value is clamped to
    /// ``plausibleRange`` first, so arithmetic with the result cannot overflow.
    public var unixMicroseconds: Int64 {
        min(max(rawValue, Self.plausibleRange.lowerBound), Self.plausibleRange.upperBound) - Self.unixEpochOffset
    }

    /// Milliseconds since 1970-01-01 00:00 UTC, rounded down (toward the past).
    public var unixMilliseconds: Int64 {
        let us = unixMicroseconds
        return us >= 0 ? us / 1000 : (us - 999) / 1000
    }

    /// Orders timestamps.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
