/// A 128-bit UUID held as two integers (no Foundation, no heap): the iBeacon proximity UUID, the
/// AltBeacon id1, and 16/32/128-bit Bluetooth service UUIDs.
///
/// ``high`` holds bytes 0–7 and ``low`` bytes 8–15 in the order the UUID is written, so
/// `E2C56DB5-DFFB-48D2-B060-D0F5A71096E0` has `high == 0xE2C56DB5DFFB48D2`.
public struct UUID128: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Bytes 0–7 of the UUID as written, big-endian.
    public let high: UInt64
    /// Bytes 8–15 of the UUID as written, big-endian.
    public let low: UInt64

    /// Builds a UUID from its two halves.
    public init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads 16 bytes at absolute index `index` in the written order (iBeacon and AltBeacon send
    /// their UUID big-endian). The caller has checked that 16 bytes are there.
    @inline(__always)
    init(bigEndianAt index: Int, in bytes: ArraySlice<UInt8>) {
        self.high = bytes.uintBE(at: index, count: 8)
        self.low = bytes.uintBE(at: index + 8, count: 8)
    }

    /// Reads 16 bytes at absolute index `index` least significant first (128-bit service UUIDs in
    /// AD structures). The caller has checked that 16 bytes are there.
    @inline(__always)
    init(littleEndianAt index: Int, in bytes: ArraySlice<UInt8>) {
        self.high = bytes.uintLE(at: index + 8, count: 8)
        self.low = bytes.uintLE(at: index, count: 8)
    }

    /// The full UUID of a 16- or 32-bit Bluetooth SIG UUID, on the Bluetooth base UUID
    /// `0000xxxx-0000-1000-8000-00805F9B34FB` (Core spec Vol 3 Part B §2.5.1).
    public init(bluetoothShort value: UInt32) {
        self.high = UInt64(value) << 32 | 0x0000_1000
        self.low = 0x8000_0080_5F9B_34FB
    }

    /// Parses 32 hex digits, with or without the dashes, either case; nil otherwise.
    public init?(_ text: String) {
        let count = text.utf8.count
        guard count == 32 || count == 36 else { return nil }
        if count == 36 {
            for (i, byte) in text.utf8.enumerated() where [8, 13, 18, 23].contains(i) {
                guard byte == UInt8(ascii: "-") else { return nil }
            }
        }
        guard let parsed = Hex.parse(text, digits: 32, separators: count == 36) else { return nil }
        self.high = parsed.high
        self.low = parsed.low
    }

    /// `E2C56DB5-DFFB-48D2-B060-D0F5A71096E0`: uppercase with dashes, as Core Location prints a
    /// proximity UUID and as it appears in `ib-` and `ab-` device ids.
    public var uuidString: String { text(uppercase: true) }

    /// The UUID text with dashes in the chosen case (Bluetooth service UUIDs are usually lowercase).
    public func text(uppercase: Bool) -> String {
        String(asciiCount: 36) { buffer in
            _ = Self.write(self, uppercase: uppercase, into: buffer, at: 0)
        }
    }

    /// The same as ``uuidString``.
    public var description: String { uuidString }

    /// Orders UUIDs by their bytes as written.
    public static func < (lhs: UUID128, rhs: UUID128) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }

    /// Writes the 36-character dashed form into `buffer` at `position`; returns the position after.
    static func write(
        _ uuid: UUID128, uppercase: Bool, into buffer: UnsafeMutableBufferPointer<UInt8>, at position: Int
    ) -> Int {
        var p = Hex.write(uuid.high >> 32, digits: 8, uppercase: uppercase, into: buffer, at: position)
        buffer[p] = UInt8(ascii: "-")
        p = Hex.write(uuid.high >> 16, digits: 4, uppercase: uppercase, into: buffer, at: p + 1)
        buffer[p] = UInt8(ascii: "-")
        p = Hex.write(uuid.high, digits: 4, uppercase: uppercase, into: buffer, at: p + 1)
        buffer[p] = UInt8(ascii: "-")
        p = Hex.write(uuid.low >> 48, digits: 4, uppercase: uppercase, into: buffer, at: p + 1)
        buffer[p] = UInt8(ascii: "-")
        return Hex.write(uuid.low, digits: 12, uppercase: uppercase, into: buffer, at: p + 1)
    }
}

/// The 10-byte namespace of an Eddystone-UID frame (often a truncated hash of a domain or the
/// first and last bytes of a UUID); printed as 20 lowercase hex digits in `eu-` device ids.
public struct EddystoneNamespace: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// Bytes 0–1, big-endian.
    public let high: UInt16
    /// Bytes 2–9, big-endian.
    public let low: UInt64

    /// Builds a namespace from its parts.
    public init(high: UInt16, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Reads the 10 bytes at absolute index `index`; the caller has checked they are there.
    @inline(__always)
    init(at index: Int, in bytes: ArraySlice<UInt8>) {
        self.high = bytes.uint16BE(at: index)
        self.low = bytes.uintBE(at: index + 2, count: 8)
    }

    /// Parses exactly 20 hex digits (either case); nil otherwise. For allow-lists in config.
    public init?(hex text: String) {
        guard let parsed = Hex.parse(text, digits: 20, separators: false) else { return nil }
        self.high = UInt16(truncatingIfNeeded: parsed.high)
        self.low = parsed.low
    }

    /// 20 lowercase hex digits.
    public var description: String {
        String(asciiCount: 20) { buffer in
            let p = Hex.write(UInt64(high), digits: 4, uppercase: false, into: buffer, at: 0)
            _ = Hex.write(low, digits: 16, uppercase: false, into: buffer, at: p)
        }
    }

    /// Orders namespaces by their bytes.
    public static func < (lhs: Self, rhs: Self) -> Bool { (lhs.high, lhs.low) < (rhs.high, rhs.low) }
}

/// The 6-byte instance of an Eddystone-UID frame; printed as 12 lowercase hex digits.
public struct EddystoneInstance: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 48-bit instance, big-endian.
    public let rawValue: UInt64

    /// Wraps a 48-bit value; nil when bits above the 48th are set.
    public init?(rawValue: UInt64) {
        guard rawValue >> 48 == 0 else { return nil }
        self.rawValue = rawValue
    }

    /// Reads the 6 bytes at absolute index `index`; the caller has checked they are there.
    @inline(__always)
    init(at index: Int, in bytes: ArraySlice<UInt8>) {
        self.rawValue = bytes.uintBE(at: index, count: 6)
    }

    /// 12 lowercase hex digits.
    public var description: String {
        String(asciiCount: 12) { buffer in
            _ = Hex.write(rawValue, digits: 12, uppercase: false, into: buffer, at: 0)
        }
    }

    /// Orders instances numerically.
    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
