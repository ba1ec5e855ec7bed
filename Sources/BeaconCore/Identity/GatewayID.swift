/// The id of one gateway (one beacon-edge), `gw-` followed by lowercase letters, digits and `-`.
///
/// A gateway id is one MQTT topic level (`beaconnet/sightings/<store>/<gw>`), so its alphabet
/// excludes `/`, `+`, `#` and control characters by construction, and its length is bounded.
public struct GatewayID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The longest id accepted, in bytes (prefix included).
    public static let maxLength = 64

    /// The validated text, e.g. `gw-12-3a`.
    public let rawValue: String

    /// Validates `text`; throws an ``IdentityError`` that says which rule it broke.
    public init(_ text: String) throws(IdentityError) {
        guard text.utf8.count <= Self.maxLength else {
            throw .tooLong(kind: "gateway id", length: text.utf8.count, limit: Self.maxLength)
        }
        guard text.hasPrefix("gw-"), text.utf8.count > 3 else {
            throw .badFormat(kind: "gateway id", text: text, rule: "must be gw- followed by a-z, 0-9 or -")
        }
        for byte in text.utf8.dropFirst(3) {
            let ok = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            guard ok else {
                throw .badFormat(kind: "gateway id", text: text, rule: "must be gw- followed by a-z, 0-9 or -")
            }
        }
        self.rawValue = text
    }

    public var description: String { rawValue }
    public static func < (lhs: GatewayID, rhs: GatewayID) -> Bool { lhs.rawValue < rhs.rawValue }
}
