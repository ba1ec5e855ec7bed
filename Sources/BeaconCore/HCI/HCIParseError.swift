/// Why an HCI event could not be decoded. Every case carries the byte offset, counted from the
/// first byte handed to the parser (the H4 packet-type byte when the packet came with one), so a
/// log line can be matched against a hex dump.
public enum HCIParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The packet's H4 packet-type byte is not 0x04 (event); `packetType` is what it was.
    case notAnEvent(packetType: UInt8)
    /// The bytes end inside `field`: it needs `needed` bytes from `offset`, only `available` remain.
    case truncated(field: HCIField, offset: Int, needed: Int, available: Int)
    /// The event's Parameter_Total_Length (at `offset`) says `declared` bytes, but `actual` follow.
    case parameterLengthMismatch(declared: Int, actual: Int, offset: Int)
    /// Num_Reports promised `declared` reports, the parameters ended cleanly after `found`.
    case reportCountMismatch(declared: Int, found: Int, offset: Int)
    /// `count` bytes are left at `offset` after the last report the event declared.
    case trailingBytes(offset: Int, count: Int)

    /// The byte offset the problem was found at.
    public var offset: Int {
        switch self {
        case .notAnEvent: return 0
        case .truncated(_, let offset, _, _): return offset
        case .parameterLengthMismatch(_, _, let offset): return offset
        case .reportCountMismatch(_, _, let offset): return offset
        case .trailingBytes(let offset, _): return offset
        }
    }

    /// One line for logs, with the field, offset and lengths involved.
    public var description: String {
        switch self {
        case .notAnEvent(let type):
            return "not an HCI event packet: H4 packet type 0x\(String(type, radix: 16)), expected 0x04"
        case .truncated(let field, let offset, let needed, let available):
            return "HCI event truncated in \(field.rawValue) at byte \(offset): needs \(needed) bytes, \(available) left"
        case .parameterLengthMismatch(let declared, let actual, let offset):
            return "HCI event parameter length at byte \(offset) says \(declared) bytes, \(actual) follow"
        case .reportCountMismatch(let declared, let found, let offset):
            return "HCI advertising event declares \(declared) reports, parameters end at byte \(offset) after \(found)"
        case .trailingBytes(let offset, let count):
            return "HCI advertising event has \(count) unexpected bytes at byte \(offset) after its last report"
        }
    }
}

/// The part of an HCI event a ``HCIParseError`` points at.
public enum HCIField: String, Sendable, Hashable {
    /// The H4 packet-type byte.
    case packetType = "packet type"
    /// Event_Code and Parameter_Total_Length.
    case eventHeader = "event header"
    /// The LE Meta event's Subevent_Code.
    case subeventCode = "subevent code"
    /// Num_Reports.
    case numReports = "Num_Reports"
    /// The fixed fields of one report, up to and including Data_Length.
    case reportHeader = "report header"
    /// A report's advertising data.
    case reportData = "report data"
    /// A legacy report's RSSI, which follows its data.
    case rssi = "RSSI"
}
