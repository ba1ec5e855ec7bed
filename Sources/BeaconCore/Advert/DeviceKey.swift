/// Who a sighting is of, as a plain value: the identity a beacon frame carries, or a stable
/// address. Hashing, comparing and filtering keys allocates nothing; the text form
/// (``deviceID``) is built only when a sighting is published.
///
/// Text forms (DESIGN.md, Identities), all safe as one MQTT topic level:
/// - iBeacon: `ib-<UUID, uppercase with dashes>-<major>-<minor>` (decimal), e.g.
///   `ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-100-0`;
/// - Eddystone-UID: `eu-<namespace, 20 lowercase hex>-<instance, 12 lowercase hex>`;
/// - AltBeacon: `ab-<id1 as a UUID, uppercase with dashes>-<id2>-<id3>` (decimal) — the same
///   shape as iBeacon, since AltBeacon's 20 id bytes are used as UUID + major + minor in practice;
/// - otherwise `mac-<AA:BB:CC:DD:EE:FF>` (uppercase) for a public or static address.
public enum DeviceKey: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// An iBeacon identity.
    case iBeacon(uuid: UUID128, major: UInt16, minor: UInt16)
    /// An Eddystone-UID identity.
    case eddystone(namespace: EddystoneNamespace, instance: EddystoneInstance)
    /// An AltBeacon identity.
    case altBeacon(id1: UUID128, id2: UInt16, id3: UInt16)
    /// A device known only by its stable address.
    case mac(BluetoothAddress)

    /// The key for a report: the frame's identity when it carries one, else the address when it is
    /// stable (public, identity, or random static). Nil for private (rotating) and anonymous
    /// addresses without an identity frame — such a key would name a new "device" every few minutes.
    ///
    /// Eddystone-TLM and -URL frames carry no identity; their reports fall back to the address like
    /// any other advert (a beacon interleaving UID and TLM frames from a private address is seen
    /// through its UID frames only).
    public init?(frame: BeaconFrame?, address: BluetoothAddress, addressType: AddressType) {
        if let key = frame?.deviceKey {
            self = key
        } else if address.isStableIdentity(as: addressType) {
            self = .mac(address)
        } else {
            return nil
        }
    }

    /// The validated id, e.g. `ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-100-0`.
    public var deviceID: DeviceID { DeviceID(unchecked: text) }

    /// The same text as ``deviceID``.
    public var description: String { text }

    /// Orders keys by kind, then by value (for stable output).
    public static func < (lhs: DeviceKey, rhs: DeviceKey) -> Bool {
        switch (lhs, rhs) {
        case let (.iBeacon(u1, a1, b1), .iBeacon(u2, a2, b2)): return (u1, a1, b1) < (u2, a2, b2)
        case let (.eddystone(n1, i1), .eddystone(n2, i2)): return (n1, i1) < (n2, i2)
        case let (.altBeacon(u1, a1, b1), .altBeacon(u2, a2, b2)): return (u1, a1, b1) < (u2, a2, b2)
        case let (.mac(a1), .mac(a2)): return a1 < a2
        default: return lhs.rank < rhs.rank
        }
    }

    private var rank: Int {
        switch self {
        case .iBeacon: return 0
        case .eddystone: return 1
        case .altBeacon: return 2
        case .mac: return 3
        }
    }

    /// Builds the text in one pass into an exactly sized string.
    private var text: String {
        switch self {
        case .iBeacon(let uuid, let major, let minor):
            return Self.uuidID(prefix: "ib-", uuid, major, minor)
        case .altBeacon(let id1, let id2, let id3):
            return Self.uuidID(prefix: "ab-", id1, id2, id3)
        case .eddystone(let namespace, let instance):
            return String(asciiCount: 3 + 20 + 1 + 12) { buffer in
                var p = Self.writePrefix("eu-", into: buffer)
                p = Hex.write(UInt64(namespace.high), digits: 4, uppercase: false, into: buffer, at: p)
                p = Hex.write(namespace.low, digits: 16, uppercase: false, into: buffer, at: p)
                buffer[p] = UInt8(ascii: "-")
                _ = Hex.write(instance.rawValue, digits: 12, uppercase: false, into: buffer, at: p + 1)
            }
        case .mac(let address):
            return "mac-" + address.text(uppercase: true)
        }
    }

    private static func uuidID(prefix: StaticString, _ uuid: UUID128, _ a: UInt16, _ b: UInt16) -> String {
        let count = 3 + 36 + 1 + decimalDigitCount(a) + 1 + decimalDigitCount(b)
        return String(asciiCount: count) { buffer in
            var p = writePrefix(prefix, into: buffer)
            p = UUID128.write(uuid, uppercase: true, into: buffer, at: p)
            buffer[p] = UInt8(ascii: "-")
            p = writeDecimal(a, into: buffer, at: p + 1)
            buffer[p] = UInt8(ascii: "-")
            _ = writeDecimal(b, into: buffer, at: p + 1)
        }
    }

    private static func writePrefix(_ prefix: StaticString, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        prefix.withUTF8Buffer { bytes in
            for (i, byte) in bytes.enumerated() { buffer[i] = byte }
            return bytes.count
        }
    }
}

extension BeaconFrame {
    /// The identity this frame carries: iBeacon, Eddystone-UID and AltBeacon do; URL, TLM and other
    /// Eddystone frames do not.
    public var deviceKey: DeviceKey? {
        switch self {
        case .iBeacon(let f): return .iBeacon(uuid: f.uuid, major: f.major, minor: f.minor)
        case .eddystoneUID(let f): return .eddystone(namespace: f.namespace, instance: f.instance)
        case .altBeacon(let f): return .altBeacon(id1: f.id1, id2: f.id2, id3: f.id3)
        case .eddystoneURL, .eddystoneTLM, .eddystoneOther: return nil
        }
    }
}

extension AdvertisingReport {
    /// The first beacon frame in this report's data (see ``AdvertisingData/firstBeaconFrame``).
    public var firstBeaconFrame: BeaconFrame? { BeaconFrame.first(in: data) }

    /// The frame this report is keyed by (see ``AdvertisingData/keyBeaconFrame``).
    public var keyBeaconFrame: BeaconFrame? { BeaconFrame.key(in: data) }

    /// The device key for this report given its frame (see ``DeviceKey/init(frame:address:addressType:)``).
    public func deviceKey(frame: BeaconFrame?) -> DeviceKey? {
        DeviceKey(frame: frame, address: address, addressType: addressType)
    }
}
