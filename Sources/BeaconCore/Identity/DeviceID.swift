/// The id of a tracked device, derived from what it advertises (see DESIGN.md, Identities):
/// `ib-<UUID>-<major>-<minor>`, `eu-<namespace>-<instance>`, `ab-<id1>-<id2>-<id3>` or `mac-<addr>`.
///
/// A device id is one MQTT topic level (`beaconnet/devices/<dev>/state`): no `/`, `+`, `#`, no
/// control characters or spaces, printable ASCII only, bounded length. The constructor enforces
/// exactly that and nothing about the prefix, so ids from newer edges still pass through.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The longest id accepted, in bytes. `ab-` with a 16-byte id1 and two 2-byte ids is well under.
    public static let maxLength = 96

    /// The validated text.
    public let rawValue: String

    /// Validates `text`; throws an ``IdentityError`` that says which rule it broke.
    public init(_ text: String) throws(IdentityError) {
        let count = text.utf8.count
        guard count > 0 else { throw .empty(kind: "device id") }
        guard count <= Self.maxLength else {
            throw .tooLong(kind: "device id", length: count, limit: Self.maxLength)
        }
        for byte in text.utf8 where !Self.isAllowed(byte) {
            throw .badFormat(
                kind: "device id", text: text,
                rule: "printable ASCII without space, '/', '+', '#' (found byte 0x\(String(byte, radix: 16)))")
        }
        self.rawValue = text
    }

    /// Builds an id from parts this module generated itself (already validated alphabet).
    init(unchecked text: String) { self.rawValue = text }

    @inline(__always)
    static func isAllowed(_ byte: UInt8) -> Bool {
        byte > 0x20 && byte < 0x7F && byte != UInt8(ascii: "/") && byte != UInt8(ascii: "+")
            && byte != UInt8(ascii: "#")
    }

    public var description: String { rawValue }
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }
}
