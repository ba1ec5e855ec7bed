import BeaconCore
import CJSONC

/// Typed, bounds-checked access to one JSON object inside a parsed document.
///
/// A reader borrows json-c memory: it is only valid while the document's root is alive, so it
/// never escapes the `decode` call that created it. Keys are static C strings, so a lookup costs
/// no allocation; the only strings built are the values a payload keeps.
struct ObjectReader {
    /// The json-c object (`json_type_object`), owned by the document.
    let object: OpaquePointer
    /// Where the object is, for error messages.
    let path: FieldPath
    /// The decoder's limits (time range, list sizes).
    let limits: WireLimits

    /// The top-level object of a payload, after checking that `"v"` is 1.
    static func root(_ value: OpaquePointer, limits: WireLimits) throws(WireError) -> ObjectReader {
        guard json_object_get_type(value) == json_type_object else {
            throw WireError(field: "", reason: .wrongType(expected: .object, found: JSONKind(of: value)))
        }
        let reader = ObjectReader(object: value, path: .root, limits: limits)
        let version = try reader.int("v", in: Int64.min...Int64.max)
        guard version == 1 else { throw WireError(field: "v", reason: .unsupportedVersion(version)) }
        return reader
    }

    // MARK: Lookup

    /// The value of `key`: `.none` when absent, `.some(nil)` for JSON `null`.
    @inline(__always)
    func lookup(_ key: StaticString) -> OpaquePointer?? {
        var value: OpaquePointer?
        guard json_object_object_get_ex(object, key.cString, &value) != 0 else { return .none }
        return .some(value)
    }

    /// The value of a required `key`, which must not be `null`.
    @inline(__always)
    func required(_ key: StaticString, _ expected: JSONKind) throws(WireError) -> OpaquePointer {
        guard let found = lookup(key) else { throw WireError(field: path.appending(key), reason: .missing) }
        guard let value = found else {
            throw WireError(field: path.appending(key), reason: .wrongType(expected: expected, found: .null))
        }
        return value
    }

    /// A member value found by walking the object, which must not be `null`.
    @inline(__always)
    func present(_ value: OpaquePointer?, _ key: StaticString, _ expected: JSONKind) throws(WireError) -> OpaquePointer {
        guard let value else { throw WireError(field: path.appending(key), reason: .wrongType(expected: expected, found: .null)) }
        return value
    }

    /// The value of an optional `key`; absent and `null` both read as `nil`.
    @inline(__always)
    func optional(_ key: StaticString) -> OpaquePointer? {
        lookup(key) ?? nil
    }

    // MARK: Numbers

    /// A required integer within `bounds`; `unit` completes the range in messages (`dBm`, `ms`).
    @inline(__always)
    func int(_ key: StaticString, in bounds: ClosedRange<Int64>, unit: String = "") throws(WireError) -> Int64 {
        try integer(required(key, .integer), key, in: bounds, unit: unit)
    }

    /// An optional integer within `bounds`.
    @inline(__always)
    func optionalInt(_ key: StaticString, in bounds: ClosedRange<Int64>, unit: String = "") throws(WireError) -> Int64? {
        guard let value = optional(key) else { return nil }
        return try integer(value, key, in: bounds, unit: unit)
    }

    /// A required timestamp in Unix milliseconds within ``WireLimits/timeRange``.
    @inline(__always)
    func time(_ key: StaticString) throws(WireError) -> Int64 {
        try integer(required(key, .integer), key, in: timeBounds, unit: Self.timeUnit)
    }

    /// An optional timestamp in Unix milliseconds.
    func optionalTime(_ key: StaticString) throws(WireError) -> Int64? {
        guard let value = optional(key) else { return nil }
        return try integer(value, key, in: timeBounds, unit: Self.timeUnit)
    }

    /// A required sequence number or counter: 0 … 2⁵³−1.
    @inline(__always)
    func count(_ key: StaticString) throws(WireError) -> UInt64 {
        UInt64(try integer(required(key, .integer), key, in: WireNumbers.countRange, unit: ""))
    }

    /// An optional counter: 0 … 2⁵³−1.
    func optionalCount(_ key: StaticString) throws(WireError) -> UInt64? {
        guard let value = optional(key) else { return nil }
        return UInt64(try integer(value, key, in: WireNumbers.countRange, unit: ""))
    }

    /// A store or section number (iBeacon major or minor).
    func uint16(_ key: StaticString) throws(WireError) -> UInt16 {
        UInt16(try int(key, in: 0...Int64(UInt16.max)))
    }

    /// An optional store or section number.
    func optionalUInt16(_ key: StaticString) throws(WireError) -> UInt16? {
        try optionalInt(key, in: 0...Int64(UInt16.max)).map { UInt16($0) }
    }

    /// Any number (integer or not) within `bounds`; NaN and infinities are out of range.
    func double(_ key: StaticString, in bounds: ClosedRange<Double>, unit: String = "") throws(WireError) -> Double {
        try number(required(key, .number), key, in: bounds, unit: unit)
    }

    /// An optional number within `bounds`.
    func optionalDouble(_ key: StaticString, in bounds: ClosedRange<Double>, unit: String = "") throws(WireError) -> Double? {
        guard let value = optional(key) else { return nil }
        return try number(value, key, in: bounds, unit: unit)
    }

    /// Checks an integer value. A number written with a fraction or exponent is out of range when
    /// it lies beyond the bounds (the more useful message for `1e300`), and otherwise a wrong type.
    @inline(__always)
    func integer(_ value: OpaquePointer, _ key: StaticString, in bounds: ClosedRange<Int64>, unit: String) throws(WireError) -> Int64 {
        let type = json_object_get_type(value)
        if type == json_type_int {
            let number = json_object_get_int64(value)  // saturates, so huge integers land outside any bound
            guard bounds.contains(number) else { throw outOfRange(value, key, bounds, unit) }
            return number
        }
        if type == json_type_double {
            let number = json_object_get_double(value)
            guard number >= Double(bounds.lowerBound), number <= Double(bounds.upperBound) else {
                throw outOfRange(value, key, bounds, unit)
            }
        }
        throw WireError(field: path.appending(key), reason: .wrongType(expected: .integer, found: JSONKind(of: value)))
    }

    func number(_ value: OpaquePointer, _ key: StaticString, in bounds: ClosedRange<Double>, unit: String) throws(WireError) -> Double {
        let type = json_object_get_type(value)
        guard type == json_type_double || type == json_type_int else {
            throw WireError(field: path.appending(key), reason: .wrongType(expected: .number, found: JSONKind(of: value)))
        }
        let number = json_object_get_double(value)
        guard bounds.contains(number) else {  // false for NaN as well
            let text = "\(WireNumbers.plain(bounds.lowerBound))…\(WireNumbers.plain(bounds.upperBound))"
            throw WireError(
                field: path.appending(key),
                reason: .outOfRange(value: Self.text(of: value), bounds: unit.isEmpty ? text : "\(text) \(unit)"))
        }
        return number
    }

    private func outOfRange(_ value: OpaquePointer, _ key: StaticString, _ bounds: ClosedRange<Int64>, _ unit: String) -> WireError {
        let range = "\(bounds.lowerBound)…\(bounds.upperBound)"
        return WireError(
            field: path.appending(key),
            reason: .outOfRange(value: Self.text(of: value), bounds: unit.isEmpty ? range : "\(range) \(unit)"))
    }

    /// The accepted timestamps.
    var timeBounds: ClosedRange<Int64> { limits.timeRange }

    /// The unit shown with an out-of-range timestamp.
    static let timeUnit = "ms (Unix time)"

    // MARK: Text for messages

    /// A value as JSON text, as json-c serialises it (numbers keep their written form).
    static func text(of value: OpaquePointer) -> String {
        guard let text = json_object_to_json_string_ext(value, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) else { return "?" }
        let string = String(cString: text)
        return string.utf8.count > 80 ? String(string.prefix(80)) + "…" : string
    }

    /// A string value quoted and shortened for a message.
    static func quoted(_ text: String) -> String {
        "\"" + (text.utf8.count > 80 ? String(text.prefix(80)) + "…" : text) + "\""
    }
}

extension JSONKind {
    /// The kind of a json-c value (`nil` is JSON `null`).
    init(of value: OpaquePointer?) {
        guard let value else { self = .null; return }
        switch json_object_get_type(value) {
        case json_type_boolean: self = .boolean
        case json_type_int: self = .integer
        case json_type_double: self = .number
        case json_type_string: self = .string
        case json_type_array: self = .array
        case json_type_object: self = .object
        default: self = .null
        }
    }
}
