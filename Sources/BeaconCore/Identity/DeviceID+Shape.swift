// The shape of each kind of device id (see ``DeviceID``), checked on bytes: the aggregator checks
// every sighting's id, so this walks each byte once and allocates nothing.
extension DeviceID {
    /// Whether `bytes` (1 to ``maxLength`` of them) have the shape of their kind.
    @inline(__always)
    static func hasShape(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        switch Kind(bytes) {
        case .iBeacon, .altBeacon: isUUIDPair(bytes)
        case .eddystone: isEddystone(bytes)
        case .address: isAddress(bytes)
        case .other: isOther(bytes)
        }
    }

    /// The rule of the kind `bytes` name by their prefix, for the message of an id out of shape.
    static func shapeRule(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        switch Kind(bytes) {
        case .iBeacon: "an iBeacon id is ib-<UUID, upper-case hex>-<major>-<minor>, each number 0-65535 without a leading zero"
        case .altBeacon: "an AltBeacon id is ab-<id1 as a UUID, upper-case hex>-<id2>-<id3>, each number 0-65535 without a leading zero"
        case .eddystone: "an Eddystone-UID id is eu-<namespace, 20 lower-case hex digits>-<instance, 12 lower-case hex digits>"
        case .address: "an address id is mac-<AA:BB:CC:DD:EE:FF, upper-case hex>"
        case .other: "a device id is <kind>-<id>: the kind 1 to 8 letters a-z (ib, eu, ab, mac, rec, …), the id letters, digits, '.', '_', ':' or '-'"
        }
    }

    /// The kind an id's prefix names.
    private enum Kind {
        case iBeacon, altBeacon, eddystone, address, other

        init(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count >= 3, bytes[2] == dash || (bytes.count >= 4 && bytes[3] == dash) else {
                self = .other
                return
            }
            switch (bytes[0], bytes[1], bytes[2]) {
            case (UInt8(ascii: "i"), UInt8(ascii: "b"), dash): self = .iBeacon
            case (UInt8(ascii: "a"), UInt8(ascii: "b"), dash): self = .altBeacon
            case (UInt8(ascii: "e"), UInt8(ascii: "u"), dash): self = .eddystone
            case (UInt8(ascii: "m"), UInt8(ascii: "a"), UInt8(ascii: "c")) where bytes[3] == dash: self = .address
            default: self = .other
            }
        }
    }

    private static let dash = UInt8(ascii: "-")

    /// `ib-` or `ab-`, a UUID in upper-case hex, then two numbers 0–65535.
    private static func isUUIDPair(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count >= 3 + 36 + 4 else { return false }
        for index in 3..<39 {
            let byte = bytes[index]
            let ok = index == 11 || index == 16 || index == 21 || index == 26 ? byte == dash : isUpperHex(byte)
            guard ok else { return false }
        }
        guard bytes[39] == dash, let end = numberEnd(bytes, from: 40), end < bytes.count, bytes[end] == dash else { return false }
        return numberEnd(bytes, from: end + 1) == bytes.count
    }

    /// Where the decimal 0–65535 starting at `start` ends (no sign, no leading zero), or nil.
    private static func numberEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int? {
        var value = 0
        var index = start
        while index < bytes.count, index - start < 5, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
            value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            index += 1
        }
        let digits = index - start
        guard digits > 0, value <= 65535, digits == 1 || bytes[start] != UInt8(ascii: "0") else { return nil }
        return index
    }

    /// `eu-`, 20 lower-case hex digits, `-`, 12 lower-case hex digits.
    private static func isEddystone(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 3 + 20 + 1 + 12 else { return false }
        for index in 3..<bytes.count {
            guard index == 23 ? bytes[index] == dash : isLowerHex(bytes[index]) else { return false }
        }
        return true
    }

    /// `mac-` and six upper-case hex pairs joined by `:`.
    private static func isAddress(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count == 4 + 17 else { return false }
        for index in 4..<bytes.count {
            guard (index - 4) % 3 == 2 ? bytes[index] == UInt8(ascii: ":") : isUpperHex(bytes[index]) else { return false }
        }
        return true
    }

    /// A kind of 1 to 8 letters `a-z`, `-`, then at least one letter, digit, `.`, `_`, `:` or `-`.
    private static func isOther(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        while index < bytes.count, bytes[index] >= UInt8(ascii: "a"), bytes[index] <= UInt8(ascii: "z") { index += 1 }
        guard (1...8).contains(index), index + 1 < bytes.count, bytes[index] == dash else { return false }
        for byte in bytes[(index + 1)...] where !isIdentifierByte(byte) { return false }
        return true
    }

    @inline(__always)
    private static func isUpperHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "F"))
    }

    @inline(__always)
    private static func isLowerHex(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "f"))
    }

    @inline(__always)
    private static func isIdentifierByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: ":"), UInt8(ascii: "-"): true
        default: false
        }
    }
}
