/// A 48-bit Bluetooth device address (BD_ADDR), stored as one integer so it hashes, compares and
/// copies like a number.
///
/// HCI carries addresses least significant byte first; ``rawValue`` holds them the way people
/// print them, so the first byte of `AA:BB:CC:DD:EE:FF` is the most significant byte (`0xAA`).
public struct BluetoothAddress: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The address as a 48-bit number, `0xAABBCCDDEEFF` for `AA:BB:CC:DD:EE:FF`.
    public let rawValue: UInt64

    /// Wraps a 48-bit value; nil when bits above the 48th are set.
    public init?(rawValue: UInt64) {
        guard rawValue >> 48 == 0 else { return nil }
        self.rawValue = rawValue
    }

    /// Reads the six bytes at absolute index `index` of `bytes`, least significant first (HCI order).
    /// The caller has checked that six bytes are there.
    @inline(__always)
    init(littleEndianAt index: Int, in bytes: ArraySlice<UInt8>) {
        self.rawValue = bytes.uintLE(at: index, count: 6)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case, `:` or `-` between bytes, or none); nil otherwise.
    public init?(_ text: String) {
        let utf8 = text.utf8
        guard utf8.count == 17 || utf8.count == 12 else { return nil }
        if utf8.count == 17 {
            for (i, byte) in utf8.enumerated() where i % 3 == 2 {
                guard byte == UInt8(ascii: ":") || byte == UInt8(ascii: "-") else { return nil }
            }
        }
        guard let parsed = Hex.parse(text, digits: 12, separators: true) else { return nil }
        self.rawValue = parsed.low
    }

    /// The kind of random address this would be, read from its two most significant bits
    /// (Core spec Vol 6 Part B §1.3.2). Only meaningful when the advert says the address is random.
    public var randomKind: RandomAddressKind {
        switch rawValue >> 46 {
        case 0b11: return .staticAddress
        case 0b01: return .resolvablePrivate
        case 0b00: return .nonResolvablePrivate
        default: return .reserved
        }
    }

    /// `AA:BB:CC:DD:EE:FF`, uppercase, as in a `mac-` device id.
    public var description: String { text(uppercase: true) }

    /// The address as `aa:bb:cc:dd:ee:ff` or `AA:BB:CC:DD:EE:FF`.
    public func text(uppercase: Bool) -> String {
        String(asciiCount: 17) { buffer in
            var p = 0
            for k in 0..<6 {
                let byte = UInt64(truncatingIfNeeded: rawValue >> UInt64(40 - 8 * k)) & 0xFF
                p = Hex.write(byte, digits: 2, uppercase: uppercase, into: buffer, at: p)
                if k < 5 {
                    buffer[p] = UInt8(ascii: ":")
                    p += 1
                }
            }
        }
    }

    /// Orders addresses numerically.
    public static func < (lhs: BluetoothAddress, rhs: BluetoothAddress) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// What a random device address is, by its top two bits.
public enum RandomAddressKind: Sendable, Hashable {
    /// `11`: stays the same for the device's power cycle or longer — usable as an identity.
    case staticAddress
    /// `01`: resolvable private address; rotates (typically every 15 minutes).
    case resolvablePrivate
    /// `00`: non-resolvable private address; rotates and cannot be resolved.
    case nonResolvablePrivate
    /// `10`: reserved by the specification.
    case reserved
}

/// The advertiser's address type as HCI reports it (`Address_Type` of the LE advertising reports).
///
/// A struct over the raw byte rather than an enum, so a value from a newer controller still parses
/// and can be logged.
public struct AddressType: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The byte from the report.
    public let rawValue: UInt8

    /// Wraps a raw `Address_Type` byte.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// 0x00: public device address (IEEE-assigned, permanent).
    public static let `public` = AddressType(rawValue: 0x00)
    /// 0x01: random device address (static or private, see ``BluetoothAddress/randomKind``).
    public static let random = AddressType(rawValue: 0x01)
    /// 0x02: public identity address (the controller resolved a private address to it).
    public static let publicIdentity = AddressType(rawValue: 0x02)
    /// 0x03: random static identity address (the controller resolved a private address to it).
    public static let randomStaticIdentity = AddressType(rawValue: 0x03)
    /// 0xFF: anonymous advertisement, no address (extended reports only).
    public static let anonymous = AddressType(rawValue: 0xFF)

    /// `public`, `random`, … or the raw byte for a type this module does not know.
    public var description: String {
        switch self {
        case .public: return "public"
        case .random: return "random"
        case .publicIdentity: return "public-identity"
        case .randomStaticIdentity: return "random-static-identity"
        case .anonymous: return "anonymous"
        default: return "address-type-0x\(String(rawValue, radix: 16))"
        }
    }
}

extension BluetoothAddress {
    /// True when this address names the same device tomorrow, so it may serve as a `mac-` id:
    /// public and identity addresses, and random addresses whose top bits say *static*. Private
    /// (resolvable or not) random addresses rotate, and anonymous adverts have no address.
    public func isStableIdentity(as type: AddressType) -> Bool {
        switch type {
        case .public, .publicIdentity, .randomStaticIdentity: return true
        case .random: return randomKind == .staticAddress
        default: return false
        }
    }
}
