/// The command side of a small LE controller for the live-scan test: it answers what Linux's
/// `hci_core` sends to bring a controller up (Reset, Read Local Version/Features/Supported
/// Commands, Read BD_ADDR, LE Read Buffer Size, the event masks, …) and the scan commands of
/// beacon-edge, and keeps the one piece of state the test is about: whether, and with which
/// commands, scanning is on.
///
/// Pure: a command packet in, a Command Complete out. `beacon-vhci` moves the bytes between it and
/// `/dev/vhci`; unit tests drive it directly.
public struct VirtualController: Sendable {
    /// Whether scanning is on, and which command family turned it on (and so which report format
    /// the controller sends).
    public enum Scan: String, Sendable, Equatable, CustomStringConvertible {
        /// Not scanning.
        case off
        /// Enabled by LE Set Scan Enable: LE Advertising Reports (subevent 0x02).
        case legacy
        /// Enabled by LE Set Extended Scan Enable: LE Extended Advertising Reports (0x0D).
        case extended

        /// `off`, `legacy` or `extended`.
        public var description: String { rawValue }
    }

    /// Which advertising/scanning command family the host has used since the last reset.
    private enum Family {
        case none, legacy, extended
    }

    /// What the controller answered to one command.
    public struct Reply: Sendable, Equatable {
        /// The command's opcode.
        public var opcode: UInt16
        /// The Status of the Command Complete.
        public var status: UInt8
        /// The Command Complete event as written to `/dev/vhci`: H4 type 0x04, code 0x0E, length,
        /// one command credit, the opcode, the return parameters.
        public var packet: [UInt8]
        /// One line for the log: the opcode, its name, the status.
        public var summary: String
    }

    /// What this controller pretends to be.
    public let profile: ControllerProfile
    /// Its public BD_ADDR, as ``BluetoothAddress/rawValue`` holds one (first printed byte highest).
    public let address: UInt64
    /// Whether scanning is on.
    public private(set) var scan: Scan = .off
    /// How many HCI_Reset commands it has taken (each time the kernel brings the adapter up).
    public private(set) var resets = 0
    private var family: Family = .none

    /// Makes a controller of `profile` with the public address `address`.
    public init(profile: ControllerProfile, address: UInt64) {
        self.profile = profile
        self.address = address
    }

    /// Answers one command packet as read from `/dev/vhci` (H4 type 0x01, opcode, length,
    /// parameters); nil when it is not a whole command packet.
    public mutating func handle(command packet: [UInt8]) -> Reply? {
        guard packet.count >= 4, packet[0] == 0x01, packet.count == 4 + Int(packet[3]) else { return nil }
        let opcode = UInt16(packet[1]) | UInt16(packet[2]) << 8
        let parameters = packet[4...]
        let result = answer(opcode, parameters)
        let status = result.first ?? 0
        let event: [UInt8] = [0x04, 0x0E, UInt8(3 + result.count), 0x01, UInt8(truncatingIfNeeded: opcode), UInt8(opcode >> 8)] + result
        return Reply(
            opcode: opcode, status: status, packet: event,
            summary: "cmd \(Self.hex(opcode)) \(Self.name(of: opcode)) -> \(Self.statusName(status))")
    }

    /// The HCI status codes this controller answers with.
    private enum Status {
        static let success: UInt8 = 0x00
        static let unknownCommand: UInt8 = 0x01
        static let disallowed: UInt8 = 0x0C
        static let invalidParameters: UInt8 = 0x12
    }

    /// The command's return parameters, status first.
    private mutating func answer(_ opcode: UInt16, _ parameters: ArraySlice<UInt8>) -> [UInt8] {
        switch opcode {
        case 0x0C03:  // Reset
            scan = .off
            family = .none
            resets += 1
            return [Status.success]
        case 0x200B, 0x200C:
            return answerLegacyScan(opcode, parameters)
        case 0x2041, 0x2042, 0x203A, 0x203B, 0x203D:
            return answerExtended(opcode, parameters)
        default:
            return information(opcode) ?? [Status.unknownCommand]
        }
    }

    /// The answers that change nothing: the controller's version, features, address and sizes,
    /// and the event masks (accepted, not kept); nil for a command this controller does not know.
    private func information(_ opcode: UInt16) -> [UInt8]? {
        let success = Status.success
        switch opcode {
        case 0x0C01, 0x0C63, 0x2001:  // Set Event Mask, Set Event Mask Page 2, LE Set Event Mask
            return [success]
        case 0x1001:  // Read Local Version Information: HCI version, revision, LMP version, manufacturer, subversion
            // Manufacturer 0x05F1, The Linux Foundation, as BlueZ's own emulator reports.
            return [success, profile.version, 0x00, 0x00, profile.version, 0xF1, 0x05, 0x00, 0x00]
        case 0x1002:  // Read Local Supported Commands
            return [success] + profile.supportedCommands
        case 0x1003:  // Read Local Supported Features
            return [success] + profile.lmpFeatures
        case 0x1009:  // Read BD_ADDR, least significant byte first
            return [success] + (0..<6).map { UInt8(truncatingIfNeeded: address >> (8 * UInt64($0))) }
        case 0x2002:  // LE Read Buffer Size: 251-byte LE ACL packets, 8 of them
            return [success, 0xFB, 0x00, 0x08]
        case 0x2003:  // LE Read Local Supported Features
            return [success] + profile.leFeatures
        case 0x201C:  // LE Read Supported States: scanning and advertising states, no connections
            return [success, 0xFF, 0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]
        default:
            return nil
        }
    }

    /// LE Set Scan Parameters (0x200B) and LE Set Scan Enable (0x200C): refused once the host
    /// used an extended command.
    private mutating func answerLegacyScan(_ opcode: UInt16, _ parameters: ArraySlice<UInt8>) -> [UInt8] {
        guard legacyAllowed else { return [Status.disallowed] }
        if opcode == 0x200B {  // LE Set Scan Parameters
            guard parameters.count == 7 else { return [Status.invalidParameters] }
            guard scan == .off else { return [Status.disallowed] }
            family = .legacy
            return [Status.success]
        }
        // LE Set Scan Enable
        guard parameters.count == 2 else { return [Status.invalidParameters] }
        family = .legacy
        if parameters[parameters.startIndex] != 0 {
            scan = .legacy
        } else if scan == .legacy {
            scan = .off
        }
        return [Status.success]
    }

    /// The extended commands: unknown to a legacy controller, refused once the host used a
    /// legacy scan command.
    private mutating func answerExtended(_ opcode: UInt16, _ parameters: ArraySlice<UInt8>) -> [UInt8] {
        guard profile == .extended else { return [Status.unknownCommand] }
        guard family != .legacy else { return [Status.disallowed] }
        switch opcode {
        case 0x2041:  // LE Set Extended Scan Parameters
            guard parameters.count >= 3 else { return [Status.invalidParameters] }
            guard scan == .off else { return [Status.disallowed] }
            family = .extended
            return [Status.success]
        case 0x2042:  // LE Set Extended Scan Enable
            guard parameters.count == 6 else { return [Status.invalidParameters] }
            family = .extended
            if parameters[parameters.startIndex] != 0 {
                scan = .extended
            } else if scan == .extended {
                scan = .off
            }
            return [Status.success]
        case 0x203A:  // LE Read Maximum Advertising Data Length: 1650 bytes
            family = .extended
            return [Status.success, 0x72, 0x06]
        case 0x203B:  // LE Read Number of Supported Advertising Sets
            family = .extended
            return [Status.success, 0x04]
        default:  // 0x203D, LE Clear Advertising Sets
            family = .extended
            return [Status.success]
        }
    }

    /// A legacy scan command is refused once the host used an extended one (extended profile).
    private var legacyAllowed: Bool { family != .extended }

    /// `0x200c`.
    static func hex(_ opcode: UInt16) -> String {
        let digits = String(opcode, radix: 16)
        return "0x" + String(repeating: "0", count: 4 - digits.count) + digits
    }

    /// The command's name for the log, or `?` for one this controller does not know.
    public static func name(of opcode: UInt16) -> String {
        switch opcode {
        case 0x0C01: "Set Event Mask"
        case 0x0C03: "Reset"
        case 0x0C63: "Set Event Mask Page 2"
        case 0x1001: "Read Local Version Information"
        case 0x1002: "Read Local Supported Commands"
        case 0x1003: "Read Local Supported Features"
        case 0x1009: "Read BD_ADDR"
        case 0x2001: "LE Set Event Mask"
        case 0x2002: "LE Read Buffer Size"
        case 0x2003: "LE Read Local Supported Features"
        case 0x200B: "LE Set Scan Parameters"
        case 0x200C: "LE Set Scan Enable"
        case 0x201C: "LE Read Supported States"
        case 0x203A: "LE Read Maximum Advertising Data Length"
        case 0x203B: "LE Read Number of Supported Advertising Sets"
        case 0x203D: "LE Clear Advertising Sets"
        case 0x2041: "LE Set Extended Scan Parameters"
        case 0x2042: "LE Set Extended Scan Enable"
        default: "?"
        }
    }

    /// `0x0c (Command Disallowed)`.
    static func statusName(_ status: UInt8) -> String {
        let text: String
        switch status {
        case 0x00: text = "Success"
        case 0x01: text = "Unknown HCI Command"
        case 0x0C: text = "Command Disallowed"
        case 0x12: text = "Invalid HCI Command Parameters"
        default: text = "status"
        }
        return "0x" + (status < 0x10 ? "0" : "") + String(status, radix: 16) + " (\(text))"
    }
}
