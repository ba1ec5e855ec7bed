// Fixed-width reads from byte slices. Callers check lengths first (every parser in this module
// proves `index + width <= endIndex` before reading), so these only assemble integers; the slice's
// own bounds check still stands behind them, which is what makes a missed check a trap in tests
// rather than a silent overread.

extension ArraySlice where Element == UInt8 {
    /// A little-endian `UInt16` at absolute index `i` (HCI fields, AD company ids and 16-bit UUIDs).
    @inline(__always)
    func uint16LE(at i: Index) -> UInt16 {
        UInt16(self[i]) | UInt16(self[i + 1]) << 8
    }

    /// A big-endian `UInt16` at absolute index `i` (iBeacon major/minor, Eddystone TLM fields).
    @inline(__always)
    func uint16BE(at i: Index) -> UInt16 {
        UInt16(self[i]) << 8 | UInt16(self[i + 1])
    }

    /// A big-endian `UInt32` at absolute index `i` (btsnoop record fields, TLM counters).
    @inline(__always)
    func uint32BE(at i: Index) -> UInt32 {
        UInt32(self[i]) << 24 | UInt32(self[i + 1]) << 16 | UInt32(self[i + 2]) << 8 | UInt32(self[i + 3])
    }

    /// A little-endian `UInt32` at absolute index `i` (32-bit service UUIDs).
    @inline(__always)
    func uint32LE(at i: Index) -> UInt32 {
        UInt32(self[i]) | UInt32(self[i + 1]) << 8 | UInt32(self[i + 2]) << 16 | UInt32(self[i + 3]) << 24
    }

    /// A big-endian `UInt64` built from `count` (≤ 8) bytes starting at absolute index `i`.
    @inline(__always)
    func uintBE(at i: Index, count: Int) -> UInt64 {
        var value: UInt64 = 0
        for k in 0..<count { value = value << 8 | UInt64(self[i + k]) }
        return value
    }

    /// A little-endian `UInt64` built from `count` (≤ 8) bytes starting at absolute index `i`
    /// (Bluetooth device addresses travel least significant byte first).
    @inline(__always)
    func uintLE(at i: Index, count: Int) -> UInt64 {
        var value: UInt64 = 0
        var k = count
        while k > 0 {
            k -= 1
            value = value << 8 | UInt64(self[i + k])
        }
        return value
    }

    /// The byte at absolute index `i` as a signed value (RSSI, TX power, measured power).
    @inline(__always)
    func int8(at i: Index) -> Int8 {
        Int8(bitPattern: self[i])
    }
}

/// Hexadecimal text without Foundation: device ids and UUIDs are built often enough on the edge
/// that `String(format:)` would matter, and BeaconCore does not import Foundation at all.
enum Hex {
    /// The ASCII digit for a nibble (0–15).
    @inline(__always)
    static func digit(_ nibble: UInt8, uppercase: Bool) -> UInt8 {
        nibble < 10 ? nibble &+ 0x30 : nibble &+ (uppercase ? 0x37 : 0x57)
    }

    /// Writes the low `digits` nibbles of `value` into `buffer` at `position`, most significant first;
    /// returns the position after the last digit.
    @inline(__always)
    static func write(
        _ value: UInt64, digits: Int, uppercase: Bool, into buffer: UnsafeMutableBufferPointer<UInt8>, at position: Int
    ) -> Int {
        var shift = (digits - 1) * 4
        var p = position
        while shift >= 0 {
            buffer[p] = digit(UInt8(truncatingIfNeeded: value >> UInt64(shift)) & 0x0F, uppercase: uppercase)
            p += 1
            shift -= 4
        }
        return p
    }

    /// The value of one ASCII hex digit, or nil.
    @inline(__always)
    static func value(of ascii: UInt8) -> UInt8? {
        switch ascii {
        case 0x30...0x39: return ascii - 0x30
        case 0x41...0x46: return ascii - 0x37
        case 0x61...0x66: return ascii - 0x57
        default: return nil
        }
    }

    /// Parses exactly `digits` hex digits from `text` (separators `-` and `:` skipped when
    /// `separators` is true) into a big-endian integer pair (high holds the digits beyond 16).
    static func parse(_ text: String, digits: Int, separators: Bool) -> (high: UInt64, low: UInt64)? {
        var high: UInt64 = 0
        var low: UInt64 = 0
        var count = 0
        for byte in text.utf8 {
            if separators && (byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":")) { continue }
            guard let nibble = value(of: byte), count < digits else { return nil }
            high = high << 4 | low >> 60
            low = low << 4 | UInt64(nibble)
            count += 1
        }
        return count == digits ? (high, low) : nil
    }
}

extension String {
    /// Builds an ASCII string of exactly `count` bytes in place (one allocation at most, none for
    /// short strings).
    @inline(__always)
    init(asciiCount count: Int, _ body: (UnsafeMutableBufferPointer<UInt8>) -> Void) {
        self.init(unsafeUninitializedCapacity: count) { buffer in
            body(buffer)
            return count
        }
    }
}

/// Writes the decimal digits of `value` into `buffer` at `position`; returns the position after.
@inline(__always)
func writeDecimal(_ value: UInt16, into buffer: UnsafeMutableBufferPointer<UInt8>, at position: Int) -> Int {
    let digits = decimalDigitCount(value)
    var v = value
    var p = position + digits
    repeat {
        p -= 1
        buffer[p] = UInt8(v % 10) + 0x30
        v /= 10
    } while v > 0
    return position + digits
}

/// How many decimal digits `value` prints as.
@inline(__always)
func decimalDigitCount(_ value: UInt16) -> Int {
    value >= 10000 ? 5 : value >= 1000 ? 4 : value >= 100 ? 3 : value >= 10 ? 2 : 1
}
