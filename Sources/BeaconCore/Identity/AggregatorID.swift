/// The id of one beacon-aggregator instance: lowercase letters, digits and `-`, e.g. `agg-eu-1`.
///
/// An aggregator id is one MQTT topic level (`beaconnet/aggregators/<id>/status`,
/// `beaconnet/rejects/<id>`), so, like ``GatewayID``, its alphabet excludes `/`, `+`, `#` and control
/// characters by construction and its length is bounded. No prefix is required: operators name
/// instances after what they own (`agg-north`, `stores-1-250`).
public struct AggregatorID: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The longest id accepted, in bytes.
    public static let maxLength = 64

    /// The validated text.
    public let rawValue: String

    /// Validates `text`; throws an ``IdentityError`` that says which rule it broke.
    public init(_ text: String) throws(IdentityError) {
        let count = text.utf8.count
        guard count > 0 else { throw .empty(kind: "aggregator id") }
        guard count <= Self.maxLength else {
            throw .tooLong(kind: "aggregator id", length: count, limit: Self.maxLength)
        }
        for byte in text.utf8 {
            let ok = (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
                || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "-")
            guard ok else {
                throw .badFormat(kind: "aggregator id", text: text, rule: "only a-z, 0-9 and - are allowed")
            }
        }
        self.rawValue = text
    }

    public var description: String { rawValue }
    public static func < (lhs: AggregatorID, rhs: AggregatorID) -> Bool { lhs.rawValue < rhs.rawValue }
}
