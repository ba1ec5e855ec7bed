/// A beacon frame found in one AD structure: what BeaconNet tracks devices by.
///
/// Every case is a plain value (integers only, no references), so classifying a report allocates
/// and reference-counts nothing. Build one with ``init(_:)`` from an ``ADStructure`` or take
/// ``AdvertisingData/firstBeaconFrame`` of a report.
public enum BeaconFrame: Hashable, Sendable {
    /// Apple iBeacon (Manufacturer Specific Data, company 0x004C, type 0x02, length 0x15).
    case iBeacon(IBeaconFrame)
    /// AltBeacon (Manufacturer Specific Data, any company, beacon code 0xBEAC).
    case altBeacon(AltBeaconFrame)
    /// Eddystone-UID (Service Data 0xFEAA, frame type 0x00).
    case eddystoneUID(EddystoneUIDFrame)
    /// Eddystone-URL (Service Data 0xFEAA, frame type 0x10).
    case eddystoneURL(EddystoneURLFrame)
    /// Eddystone-TLM, unencrypted (Service Data 0xFEAA, frame type 0x20, version 0x00).
    case eddystoneTLM(EddystoneTLMFrame)
    /// Any other Eddystone frame: EID (0x30), encrypted TLM, vendor frames (KKM sensors use 0x21).
    /// Recognised as Eddystone, not decoded, and carrying no device identity.
    case eddystoneOther(EddystoneOtherFrame)
}

/// The fields of an iBeacon advert.
public struct IBeaconFrame: Hashable, Sendable {
    /// The proximity UUID (in BeaconNet: the chain's site UUID for the app's adverts).
    public var uuid: UUID128
    /// Major (big-endian on air).
    public var major: UInt16
    /// Minor (big-endian on air).
    public var minor: UInt16
    /// Measured power: the calibrated RSSI at 1 m in dBm (0 when the sender did not calibrate).
    public var measuredPower: Int8

    /// Builds a frame from its fields.
    public init(uuid: UUID128, major: UInt16, minor: UInt16, measuredPower: Int8) {
        self.uuid = uuid
        self.major = major
        self.minor = minor
        self.measuredPower = measuredPower
    }
}

/// The fields of an AltBeacon advert (AltBeacon spec r1.0).
public struct AltBeaconFrame: Hashable, Sendable {
    /// The manufacturer's company id (little-endian on air).
    public var manufacturerID: UInt16
    /// Beacon id 1 (16 bytes, in practice a UUID).
    public var id1: UUID128
    /// Beacon id 2 (the first 2 of the spec's 4 trailing id bytes, big-endian, like a major).
    public var id2: UInt16
    /// Beacon id 3 (the last 2 id bytes, big-endian, like a minor).
    public var id3: UInt16
    /// Reference RSSI: the average received power at 1 m in dBm.
    public var referenceRSSI: Int8
    /// The manufacturer-reserved byte.
    public var manufacturerReserved: UInt8

    /// Builds a frame from its fields.
    public init(
        manufacturerID: UInt16, id1: UUID128, id2: UInt16, id3: UInt16, referenceRSSI: Int8,
        manufacturerReserved: UInt8
    ) {
        self.manufacturerID = manufacturerID
        self.id1 = id1
        self.id2 = id2
        self.id3 = id3
        self.referenceRSSI = referenceRSSI
        self.manufacturerReserved = manufacturerReserved
    }
}

/// The fields of an Eddystone-UID frame.
public struct EddystoneUIDFrame: Hashable, Sendable {
    /// Calibrated Tx power at 0 m in dBm (not 1 m: see ``BeaconFrame/powerAt1m``).
    public var txPowerAt0m: Int8
    /// The 10-byte namespace.
    public var namespace: EddystoneNamespace
    /// The 6-byte instance.
    public var instance: EddystoneInstance

    /// Builds a frame from its fields.
    public init(txPowerAt0m: Int8, namespace: EddystoneNamespace, instance: EddystoneInstance) {
        self.txPowerAt0m = txPowerAt0m
        self.namespace = namespace
        self.instance = instance
    }
}

/// The fields of an Eddystone-URL frame. The encoded URL (at most 17 bytes) is held inline, so
/// the frame — like every ``BeaconFrame`` — is a plain value with no references to count.
public struct EddystoneURLFrame: Hashable, Sendable {
    /// Calibrated Tx power at 0 m in dBm.
    public var txPowerAt0m: Int8
    /// The URL scheme prefix code: 0 `http://www.`, 1 `https://www.`, 2 `http://`, 3 `https://`.
    public var scheme: UInt8
    /// Bytes 0–7, 8–15 and 16 of the encoded URL, first byte most significant; then the count.
    private var word0: UInt64 = 0, word1: UInt64 = 0, word2: UInt64 = 0
    private var count: UInt8 = 0

    /// The longest encoded URL a frame carries.
    public static let maxEncodedLength = 17

    /// Builds a frame; nil when `encodedURL` is longer than 17 bytes.
    public init?(txPowerAt0m: Int8, scheme: UInt8, encodedURL: some Collection<UInt8>) {
        guard encodedURL.count <= Self.maxEncodedLength else { return nil }
        self.txPowerAt0m = txPowerAt0m
        self.scheme = scheme
        for byte in encodedURL { append(byte) }
    }

    /// Builds a frame from `bytes[start..<end]`, which the caller has checked is at most 17 bytes.
    init(txPowerAt0m: Int8, scheme: UInt8, bytes: ArraySlice<UInt8>, from start: Int, to end: Int) {
        self.txPowerAt0m = txPowerAt0m
        self.scheme = scheme
        for i in start..<end { append(bytes[i]) }
    }

    private mutating func append(_ byte: UInt8) {
        let shift = UInt64(56 - 8 * (Int(count) % 8))
        switch count {
        case 0..<8: word0 |= UInt64(byte) << shift
        case 8..<16: word1 |= UInt64(byte) << shift
        default: word2 |= UInt64(byte) << shift
        }
        count += 1
    }

    /// The encoded URL after the scheme: printable ASCII and expansion codes 0x00–0x0D.
    public var encodedURL: [UInt8] {
        (0..<Int(count)).map { i in
            let word = i < 8 ? word0 : i < 16 ? word1 : word2
            return UInt8(truncatingIfNeeded: word >> UInt64(56 - 8 * (i % 8)))
        }
    }

    /// The URL with scheme and expansion codes written out.
    public var url: String { EddystoneURLCoding.expand(scheme: scheme, encoded: encodedURL) }
}

/// The fields of an unencrypted Eddystone-TLM (telemetry) frame.
public struct EddystoneTLMFrame: Hashable, Sendable {
    /// Battery voltage in mV; nil when the beacon reports 0 (not supported).
    public var batteryMillivolts: UInt16?
    /// Beacon temperature as signed 8.8 fixed point (1/256 °C); nil when 0x8000 (not supported).
    public var temperatureRaw: Int16?
    /// Advertising PDUs sent since power-on or reboot.
    public var advertisingCount: UInt32
    /// Time since power-on or reboot, in units of 0.1 s.
    public var uptimeDeciseconds: UInt32

    /// The temperature in °C; nil when not supported.
    public var temperatureCelsius: Double? { temperatureRaw.map { Double($0) / 256 } }
}

/// An Eddystone frame this module recognises but does not decode. Its bytes are in the
/// ``ADStructure`` it came from (``ADStructure/serviceData16``).
public struct EddystoneOtherFrame: Hashable, Sendable {
    /// The frame type byte.
    public var frameType: UInt8

    /// Wraps a frame type.
    public init(frameType: UInt8) { self.frameType = frameType }
}

/// Eddystone-URL's compact encoding: a scheme prefix code and a URL in which bytes 0x00–0x0D stand
/// for common top-level-domain endings (github.com/google/eddystone, eddystone-url).
enum EddystoneURLCoding {
    /// Scheme prefix codes 0–3.
    static let schemes = ["http://www.", "https://www.", "http://", "https://"]

    /// Expansion codes 0x00–0x0D.
    static let expansions = [
        ".com/", ".org/", ".edu/", ".net/", ".info/", ".biz/", ".gov/",
        ".com", ".org", ".edu", ".net", ".info", ".biz", ".gov",
    ]

    /// True when every byte is an expansion code or printable ASCII; 0x0E–0x20 and 0x7F–0xFF are
    /// reserved and make the frame invalid.
    static func isValid(_ bytes: ArraySlice<UInt8>, from start: Int, to end: Int) -> Bool {
        for i in start..<end {
            let byte = bytes[i]
            guard byte <= 0x0D || (byte > 0x20 && byte < 0x7F) else { return false }
        }
        return true
    }

    /// The URL written out; reserved bytes (only possible on a hand-built frame) become U+FFFD.
    static func expand(scheme: UInt8, encoded: [UInt8]) -> String {
        var url = Int(scheme) < schemes.count ? schemes[Int(scheme)] : ""
        for byte in encoded {
            if Int(byte) < expansions.count {
                url += expansions[Int(byte)]
            } else if byte > 0x20 && byte < 0x7F {
                url.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                url += "\u{FFFD}"
            }
        }
        return url
    }
}
