/// What kind of LE controller ``VirtualController`` pretends to be: what it tells the kernel at
/// init (version, features, supported commands) and which scan commands it takes.
public enum ControllerProfile: String, Sendable, CaseIterable, CustomStringConvertible {
    /// A Bluetooth 4.2 controller: legacy scanning only; the extended commands are unknown to it
    /// (Unknown HCI Command), as on the 4.x dongles still sold.
    case legacy
    /// A Bluetooth 5.2 controller with the LE Extended Advertising feature. It keeps the spec's
    /// rule that legacy and extended advertising/scanning commands do not mix between two resets
    /// (Core Vol 4 Part E §3.1.1): once the host used an extended one — Linux does at init, reading
    /// the number of advertising sets — a legacy scan command is answered Command Disallowed, which
    /// is what sends the edge down its extended path.
    case extended

    /// `legacy` or `extended`.
    public var description: String { rawValue }

    /// HCI_Version and LMP_Version: 4.2 (0x08) or 5.2 (0x0B).
    var version: UInt8 {
        switch self {
        case .legacy: 0x08
        case .extended: 0x0B
        }
    }

    /// LMP features page 0: byte 4 has "BR/EDR Not Supported" (bit 5) and "LE Supported
    /// (Controller)" (bit 6): an LE-only controller, so the kernel skips the BR/EDR set-up.
    var lmpFeatures: [UInt8] { [0, 0, 0, 0, 0x60, 0, 0, 0] }

    /// LE features: bit 12, "LE Extended Advertising", for the extended profile only (the kernel's
    /// `ext_adv_capable`).
    var leFeatures: [UInt8] {
        switch self {
        case .legacy: [0, 0, 0, 0, 0, 0, 0, 0]
        case .extended: [0, 0x10, 0, 0, 0, 0, 0, 0]
        }
    }

    /// The Supported_Commands bitmap (64 octets, Core Vol 4 Part E §6.27): only the commands this
    /// controller answers properly, so the kernel does not send the optional ones it would have
    /// to fake.
    var supportedCommands: [UInt8] {
        var bits = [UInt8](repeating: 0, count: 64)
        bits[5] |= 0x40 | 0x80  // Set Event Mask, Reset
        bits[14] |= 0x08 | 0x20  // Read Local Version Information, Read Local Supported Features
        bits[15] |= 0x02  // Read BD_ADDR
        bits[25] |= 0x01 | 0x02 | 0x04  // LE Set Event Mask, LE Read Buffer Size, LE Read Local Supported Features
        bits[28] |= 0x08  // LE Read Supported States
        switch self {
        case .legacy:
            bits[26] |= 0x04 | 0x08  // LE Set Scan Parameters, LE Set Scan Enable
        case .extended:
            // A 5.x controller still lists the legacy commands: it refuses them only by the
            // no-mixing rule.
            bits[26] |= 0x04 | 0x08
            bits[36] |= 0x40 | 0x80  // LE Read Maximum Advertising Data Length, LE Read Number of Supported Advertising Sets
            bits[37] |= 0x02 | 0x20 | 0x40  // LE Clear Advertising Sets, LE Set Extended Scan Parameters, LE Set Extended Scan Enable
        }
        return bits
    }
}
