/// One HCI command as the scanner sends it on a raw BlueZ socket: the H4 packet type 0x01, the
/// opcode (OGF << 10 | OCF, little-endian), the parameter length and the parameters.
///
/// Pure values: encoding and the parsing of the controller's answer are tested on recorded bytes
/// without an adapter.
public struct HCICommand: Sendable, Equatable, CustomStringConvertible {
    /// OGF << 10 | OCF.
    public let opcode: UInt16
    /// The command's name, for errors (`LE Set Scan Parameters`).
    public let name: String
    /// The parameters.
    public let parameters: [UInt8]

    /// The H4 packet type of a command.
    public static let h4CommandPacketType: UInt8 = 0x01
    /// OGF of the LE controller commands.
    static let leOGF: UInt16 = 0x08

    /// Makes a command.
    public init(opcode: UInt16, name: String, parameters: [UInt8]) {
        self.opcode = opcode
        self.name = name
        self.parameters = parameters
    }

    /// The bytes to write to the socket.
    public var packet: [UInt8] {
        [Self.h4CommandPacketType, UInt8(truncatingIfNeeded: opcode), UInt8(truncatingIfNeeded: opcode >> 8),
         UInt8(parameters.count)] + parameters
    }

    /// `LE Set Scan Parameters (0x200b)`.
    public var description: String { "\(name) (0x\(String(opcode, radix: 16)))" }

    /// Passive or active scanning (active sends scan requests; BeaconNet only listens).
    public enum ScanType: UInt8, Sendable {
        /// Listen only.
        case passive = 0x00
        /// Send scan requests for scan responses.
        case active = 0x01
    }

    /// LE Set Scan Parameters (OCF 0x000B): type, interval and window in 0.625 ms units, own
    /// address type, filter policy 0 (accept every advertiser).
    public static func leSetScanParameters(
        type: ScanType = .passive, interval: UInt16, window: UInt16, ownAddressType: UInt8 = 0
    ) -> HCICommand {
        HCICommand(
            opcode: leOGF << 10 | 0x000B, name: "LE Set Scan Parameters",
            parameters: [type.rawValue] + le16(interval) + le16(window) + [ownAddressType, 0x00])
    }

    /// LE Set Scan Enable (OCF 0x000C). Duplicate filtering stays off so every advert counts.
    public static func leSetScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(
            opcode: leOGF << 10 | 0x000C, name: "LE Set Scan Enable",
            parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0])
    }

    /// LE Set Extended Scan Parameters (OCF 0x0041) for the LE 1M PHY: own address type, filter
    /// policy 0, Scanning_PHYs 0x01, then the PHY's type, interval and window.
    public static func leSetExtendedScanParameters(
        type: ScanType = .passive, interval: UInt16, window: UInt16, ownAddressType: UInt8 = 0
    ) -> HCICommand {
        HCICommand(
            opcode: leOGF << 10 | 0x0041, name: "LE Set Extended Scan Parameters",
            parameters: [ownAddressType, 0x00, 0x01, type.rawValue] + le16(interval) + le16(window))
    }

    /// LE Set Extended Scan Enable (OCF 0x0042): no duplicate filtering, duration and period 0
    /// (scan until disabled).
    public static func leSetExtendedScanEnable(_ enable: Bool, filterDuplicates: Bool = false) -> HCICommand {
        HCICommand(
            opcode: leOGF << 10 | 0x0042, name: "LE Set Extended Scan Enable",
            parameters: [enable ? 1 : 0, filterDuplicates ? 1 : 0, 0, 0, 0, 0])
    }

    private static func le16(_ value: UInt16) -> [UInt8] {
        [UInt8(truncatingIfNeeded: value), UInt8(truncatingIfNeeded: value >> 8)]
    }

    /// The status the controller answered this command with, if `event` (starting at Event_Code)
    /// is its Command Complete (0x0E) or Command Status (0x0F); nil for any other event.
    public func status(in event: ArraySlice<UInt8>) -> HCIStatus? {
        let s = event.startIndex
        guard event.count >= 2, Int(event[s + 1]) == event.count - 2 else { return nil }
        switch event[s] {
        case 0x0E:
            // Num_HCI_Command_Packets(1) Command_Opcode(2) Status(1) …
            guard event.count >= 6, UInt16(event[s + 3]) | UInt16(event[s + 4]) << 8 == opcode else { return nil }
            return HCIStatus(rawValue: event[s + 5])
        case 0x0F:
            // Status(1) Num_HCI_Command_Packets(1) Command_Opcode(2)
            guard event.count >= 6, UInt16(event[s + 4]) | UInt16(event[s + 5]) << 8 == opcode else { return nil }
            return HCIStatus(rawValue: event[s + 2])
        default:
            return nil
        }
    }
}

/// An HCI status code (Core spec Vol 1 Part F), named for the ones a scanner meets.
public struct HCIStatus: RawRepresentable, Sendable, Equatable, CustomStringConvertible {
    /// The byte.
    public let rawValue: UInt8
    /// Wraps a status byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00.
    public static let success = HCIStatus(rawValue: 0x00)
    /// 0x01: the controller does not know the command (e.g. extended scanning before 5.0).
    public static let unknownCommand = HCIStatus(rawValue: 0x01)
    /// 0x0C: not now — scanning already on, or legacy commands after extended ones were used.
    public static let commandDisallowed = HCIStatus(rawValue: 0x0C)
    /// 0x11: a feature or parameter value the controller does not support.
    public static let unsupportedFeature = HCIStatus(rawValue: 0x11)
    /// 0x12: a parameter out of range.
    public static let invalidParameters = HCIStatus(rawValue: 0x12)

    /// `Command Disallowed (0x0C)`.
    public var description: String {
        let hex = "0x" + (rawValue < 0x10 ? "0" : "") + String(rawValue, radix: 16, uppercase: true)
        let name: String
        switch rawValue {
        case 0x00: name = "Success"
        case 0x01: name = "Unknown HCI Command"
        case 0x02: name = "Unknown Connection Identifier"
        case 0x03: name = "Hardware Failure"
        case 0x0C: name = "Command Disallowed"
        case 0x0D: name = "Connection Rejected due to Limited Resources"
        case 0x11: name = "Unsupported Feature or Parameter Value"
        case 0x12: name = "Invalid HCI Command Parameters"
        case 0x1F: name = "Unspecified Error"
        case 0x3A: name = "Controller Busy"
        default: name = "HCI status"
        }
        return "\(name) (\(hex))"
    }
}
