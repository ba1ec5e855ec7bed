/// The id of a tracked device, derived from what it advertises (see DESIGN.md, Identities).
///
/// Every reader holds the same shape, so an id that one part of BeaconNet accepts no other
/// refuses:
/// - iBeacon: `ib-<UUID, upper-case hex>-<major>-<minor>` (decimal 0–65535, no leading zero);
/// - AltBeacon: `ab-<id1 as a UUID, upper-case hex>-<id2>-<id3>`, the same shape;
/// - Eddystone-UID: `eu-<namespace, 20 lower-case hex>-<instance, 12 lower-case hex>`;
/// - an address: `mac-<AA:BB:CC:DD:EE:FF, upper-case hex>`;
/// - any other kind (the recordings' `rec-…`, a newer edge's): `<kind>-<rest>`, the kind 1 to 8
///   letters `a-z`, the rest letters, digits, `.`, `_`, `:` and `-`.
///
/// So an id is one MQTT topic level (`beaconnet/devices/<dev>/state`) — no `/`, `+`, `#`, no
/// control characters or spaces — and safe to draw in a page or a log: nothing a browser or a
/// terminal reads as markup, quotes or escapes. At most ``maxLength`` bytes.
public struct DeviceID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The longest id accepted, in bytes. `ab-` with a 16-byte id1 and two 2-byte ids is well under.
    public static let maxLength = 96

    /// The validated text.
    public let rawValue: String

    /// Validates `text`; throws an ``IdentityError`` that says which rule it broke.
    public init(_ text: String) throws(IdentityError) {
        var text = text
        let checked = text.withUTF8 { bytes in Result { () throws(IdentityError) in try Self.validate(utf8: bytes) } }
        try checked.get()
        self.rawValue = text
    }

    /// Builds an id from parts this module generated itself (already in shape).
    init(unchecked text: String) { self.rawValue = text }

    public var description: String { rawValue }
    public static func < (lhs: DeviceID, rhs: DeviceID) -> Bool { lhs.rawValue < rhs.rawValue }
}
