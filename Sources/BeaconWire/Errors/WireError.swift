public import BeaconCore

/// Why a payload was rejected: which field (a JSON path such as `sightings[3].rssi`, or `""` for
/// the payload as a whole) and what was wrong with it.
///
/// The description is one line meant for a log or a dead-letter message, e.g.
/// `sightings[3].rssi: 45 is out of range -127…20 dBm`. ``Reason/code`` is a short stable code for
/// metric dimensions and the `reason` of a ``Reject``.
public struct WireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The JSON path of the offending field; empty when the problem is the payload itself.
    public var field: String
    /// What was wrong.
    public var reason: Reason

    /// Creates an error for `field` (a JSON path, `""` for the whole payload).
    public init(field: String, reason: Reason) {
        self.field = field
        self.reason = reason
    }

    /// What was wrong with a field or payload.
    public enum Reason: Sendable, Equatable {
        /// A required field is absent.
        case missing
        /// The field holds a JSON value of another kind, e.g. a string where an integer belongs.
        case wrongType(expected: JSONKind, found: JSONKind)
        /// A number outside the field's bounds; `value` is the number as it was written (or
        /// saturated by the parser), `bounds` the accepted range with its unit, e.g. `-127…20 dBm`.
        case outOfRange(value: String, bounds: String)
        /// A value of the right type that is not one of the accepted forms, e.g. an unknown state
        /// name or a malformed UUID; `expected` says what would have been accepted.
        case invalidValue(value: String, expected: String)
        /// A string longer than the field allows, in bytes.
        case tooLong(length: Int, limit: Int)
        /// The bytes are not JSON (or not complete JSON): json-c's error at byte `offset`.
        case invalidJSON(offset: Int, description: String)
        /// The payload is larger than ``WireLimits/maxPayloadBytes``; rejected before parsing.
        case payloadTooLarge(size: Int, limit: Int)
        /// An array or object has more entries than its limit (e.g. ``WireLimits/maxSightings``).
        case tooManyItems(count: Int, limit: Int)
        /// Arrays or objects are nested deeper than ``WireLimits/maxDepth``.
        case tooDeep(limit: Int)
        /// A string is not valid UTF-8; `offset` is where json-c stopped.
        case invalidUTF8(offset: Int)
        /// A device, gateway or aggregator id breaks the identity rules of BeaconCore.
        case invalidIdentity(IdentityError)
        /// `"v"` is not a version this decoder reads (only 1 exists).
        case unsupportedVersion(Int64)
        /// A key is given twice in one object: a JSON parser would keep one of the values
        /// without a word. `field` is the repeated key's path.
        case duplicateKey

        /// A short, stable code for metrics and dead letters, e.g. `out_of_range`.
        public var code: String {
            switch self {
            case .missing: "missing"
            case .wrongType: "wrong_type"
            case .outOfRange: "out_of_range"
            case .invalidValue: "invalid_value"
            case .tooLong: "too_long"
            case .invalidJSON: "invalid_json"
            case .payloadTooLarge: "payload_too_large"
            case .tooManyItems: "too_many_items"
            case .tooDeep: "too_deep"
            case .invalidUTF8: "invalid_utf8"
            case .invalidIdentity: "invalid_identity"
            case .unsupportedVersion: "unsupported_version"
            case .duplicateKey: "duplicate_key"
            }
        }
    }

    public var description: String {
        let subject = field.isEmpty ? "payload" : field
        switch reason {
        case .missing:
            return "\(subject) is missing"
        case .wrongType(let expected, let found):
            return "\(subject): expected \(expected), found \(found)"
        case .outOfRange(let value, let bounds):
            return "\(subject): \(value) is out of range \(bounds)"
        case .invalidValue(let value, let expected):
            return "\(subject): \(value) is invalid, expected \(expected)"
        case .tooLong(let length, let limit):
            return "\(subject): \(length) bytes is longer than the limit of \(limit)"
        case .invalidJSON(let offset, let description):
            return "\(subject): invalid JSON at byte \(offset): \(description)"
        case .payloadTooLarge(let size, let limit):
            return "\(subject): \(size) bytes is larger than the limit of \(limit)"
        case .tooManyItems(let count, let limit):
            return "\(subject): \(count) items is more than the limit of \(limit)"
        case .tooDeep(let limit):
            return "\(subject): nested deeper than \(limit) levels"
        case .invalidUTF8(let offset):
            return "\(subject): invalid UTF-8 at byte \(offset)"
        case .invalidIdentity(let error):
            return "\(subject): \(error)"
        case .unsupportedVersion(let version):
            return "\(subject): version \(version) is not supported (this decoder reads version 1)"
        case .duplicateKey:
            return field.isEmpty
                ? "payload: a key is given twice in one object (one of the values would be lost)"
                : "\(subject): given twice in its object (one of the values would be lost)"
        }
    }
}

/// The kind of a JSON value, as named in a ``WireError/Reason/wrongType(expected:found:)``.
public enum JSONKind: String, Sendable, Equatable, CaseIterable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case boolean
    /// A number written without fraction or exponent.
    case integer
    /// A number written with a fraction or exponent (or an integer where any number is accepted).
    case number
    /// A string.
    case string
    /// An array.
    case array
    /// An object.
    case object

    public var description: String {
        switch self {
        case .null: "null"
        case .boolean: "a boolean"
        case .integer: "an integer"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}
