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

    // MARK: Strings and identities

    /// The UTF-8 bytes of a string value, borrowed from json-c (valid while the document lives).
    @inline(__always)
    func bytes(_ value: OpaquePointer, _ key: StaticString) throws(WireError) -> UnsafeBufferPointer<UInt8> {
        guard json_object_get_type(value) == json_type_string else {
            throw WireError(field: path.appending(key), reason: .wrongType(expected: .string, found: JSONKind(of: value)))
        }
        let count = Int(json_object_get_string_len(value))
        guard count > 0, let start = json_object_get_string(value) else { return UnsafeBufferPointer(start: nil, count: 0) }
        return UnsafeBufferPointer(start: UnsafeRawPointer(start).assumingMemoryBound(to: UInt8.self), count: count)
    }

    /// A required string of at most `maxLength` bytes.
    func string(_ key: StaticString, maxLength: Int) throws(WireError) -> String {
        try string(required(key, .string), key, maxLength: maxLength)
    }

    /// An optional string of at most `maxLength` bytes.
    func optionalString(_ key: StaticString, maxLength: Int) throws(WireError) -> String? {
        guard let value = optional(key) else { return nil }
        return try string(value, key, maxLength: maxLength)
    }

    /// A string value of at most `maxLength` bytes.
    func string(_ value: OpaquePointer, _ key: StaticString, maxLength: Int) throws(WireError) -> String {
        let buffer = try bytes(value, key)
        guard buffer.count <= maxLength else {
            throw WireError(field: path.appending(key), reason: .tooLong(length: buffer.count, limit: maxLength))
        }
        return String(decoding: buffer, as: UTF8.self)  // json-c validated the UTF-8
    }

    /// A required device id, validated on the borrowed bytes so only a valid id allocates.
    func deviceID(_ key: StaticString) throws(WireError) -> DeviceID {
        try deviceID(required(key, .string), key)
    }

    /// A device id value.
    @inline(__always)
    func deviceID(_ value: OpaquePointer, _ key: StaticString) throws(WireError) -> DeviceID {
        let buffer = try bytes(value, key)
        do {
            return try DeviceID(utf8: buffer)
        } catch {
            throw WireError(field: path.appending(key), reason: .invalidIdentity(error))
        }
    }

    /// A required gateway id.
    func gatewayID(_ key: StaticString) throws(WireError) -> GatewayID {
        let text = try string(key, maxLength: .max)
        do { return try GatewayID(text) } catch { throw WireError(field: path.appending(key), reason: .invalidIdentity(error)) }
    }

    /// A required aggregator id.
    func aggregatorID(_ key: StaticString) throws(WireError) -> AggregatorID {
        let text = try string(key, maxLength: .max)
        do { return try AggregatorID(text) } catch { throw WireError(field: path.appending(key), reason: .invalidIdentity(error)) }
    }

    /// A required string that must be one of an enumeration's raw values.
    func choice<Choice: RawRepresentable & CaseIterable>(_ key: StaticString, _: Choice.Type = Choice.self) throws(WireError) -> Choice
    where Choice.RawValue == String {
        let text = try string(key, maxLength: 64)
        guard let choice = Choice(rawValue: text) else {
            let names = Choice.allCases.map(\.rawValue)
            let expected = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
            throw WireError(field: path.appending(key), reason: .invalidValue(value: Self.quoted(text), expected: expected))
        }
        return choice
    }

    // MARK: Containers

    /// An optional nested object.
    func optionalObject(_ key: StaticString) throws(WireError) -> ObjectReader? {
        guard let value = optional(key) else { return nil }
        guard json_object_get_type(value) == json_type_object else {
            throw WireError(field: path.appending(key), reason: .wrongType(expected: .object, found: JSONKind(of: value)))
        }
        return ObjectReader(object: value, path: path.child(key), limits: limits)
    }

    /// A required array of objects of at most `limit` elements.
    func array(_ key: StaticString, limit: Int) throws(WireError) -> ArrayReader {
        let value = try required(key, .array)
        guard json_object_get_type(value) == json_type_array else {
            throw WireError(field: path.appending(key), reason: .wrongType(expected: .array, found: JSONKind(of: value)))
        }
        let count = json_object_array_length(value)
        guard count <= limit else {
            throw WireError(field: path.appending(key), reason: .tooManyItems(count: count, limit: limit))
        }
        return ArrayReader(array: value, count: count, key: key, limits: limits)
    }

    /// An optional object used as a map from names to counters, e.g. `{"bad_json": 3}`; each name
    /// is checked by `makeKey`, each value is a counter (0 … 2⁵³−1).
    func counterMap<Key: Hashable>(
        _ key: StaticString, limit: Int, makeKey: (String) throws(IdentityError) -> Key
    ) throws(WireError) -> [Key: UInt64] {
        guard let map = try optionalObject(key) else { return [:] }
        let count = Int(bn_json_object_length(map.object))
        guard count <= limit else {
            throw WireError(field: path.appending(key), reason: .tooManyItems(count: count, limit: limit))
        }
        var result: [Key: UInt64] = [:]
        result.reserveCapacity(count)
        var iterator = json_object_iter_begin(map.object)
        var end = json_object_iter_end(map.object)
        while json_object_iter_equal(&iterator, &end) == 0 {
            let name = String(cString: json_object_iter_peek_name(&iterator))
            let field = map.path.appending(name)
            guard let value = json_object_iter_peek_value(&iterator) else {
                throw WireError(field: field, reason: .wrongType(expected: .integer, found: .null))
            }
            guard json_object_get_type(value) == json_type_int else {
                throw WireError(field: field, reason: .wrongType(expected: .integer, found: JSONKind(of: value)))
            }
            let number = json_object_get_int64(value)
            guard WireNumbers.countRange.contains(number) else {
                throw WireError(field: field, reason: .outOfRange(value: Self.text(of: value), bounds: "0…\(WireNumbers.countRange.upperBound)"))
            }
            do {
                result[try makeKey(name)] = UInt64(number)
            } catch {
                throw WireError(field: field, reason: .invalidIdentity(error))
            }
            json_object_iter_next(&iterator)
        }
        return result
    }

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

/// The elements of a JSON array of objects.
struct ArrayReader {
    let array: OpaquePointer
    let count: Int
    let key: StaticString
    let limits: WireLimits

    /// The element at `index` as an object.
    @inline(__always)
    func object(at index: Int) throws(WireError) -> ObjectReader {
        let path = FieldPath.element(of: key, index: index)
        guard let value = json_object_array_get_idx(array, index), json_object_get_type(value) == json_type_object else {
            let found = json_object_array_get_idx(array, index).map(JSONKind.init(of:)) ?? .null
            throw WireError(field: path.text, reason: .wrongType(expected: .object, found: found))
        }
        return ObjectReader(object: value, path: path, limits: limits)
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

extension ObjectReader {
    /// A required site UUID in 8-4-4-4-12 hex form.
    func uuid(_ key: StaticString) throws(WireError) -> String {
        let text = try string(key, maxLength: 64)
        guard WireText.isUUID(text) else {
            throw WireError(
                field: path.appending(key),
                reason: .invalidValue(value: Self.quoted(text), expected: "a UUID such as E2C56DB5-DFFB-48D2-B060-D0F5A71096E0"))
        }
        return text
    }

    /// `"major"` and optional `"minor"`: a store or a section.
    func region() throws(WireError) -> RegionScope {
        guard let region = try optionalRegion() else { throw WireError(field: path.appending("major"), reason: .missing) }
        return region
    }

    /// `"major"` and optional `"minor"`, or neither. A minor without a major is invalid, not
    /// silently dropped.
    func optionalRegion() throws(WireError) -> RegionScope? {
        let store = try optionalUInt16("major")
        let section = try optionalUInt16("minor")
        switch (store, section) {
        case (let store?, let section?): return .section(SectionRef(store: store, section: section))
        case (let store?, nil): return .store(store)
        case (nil, let section?):
            throw WireError(field: path.appending("minor"), reason: .invalidValue(value: "\(section)", expected: "no minor without a major"))
        case (nil, nil): return nil
        }
    }

    /// A region given by `"scope"` (`store` or `section`), `"major"` and, for a section, `"minor"`.
    func scopedRegion() throws(WireError) -> RegionScope {
        let scope = try string("scope", maxLength: 64)
        let store = try uint16("major")
        switch scope {
        case "store":
            if let minor = try optionalUInt16("minor") {
                throw WireError(field: path.appending("minor"), reason: .invalidValue(value: "\(minor)", expected: "no minor for a store-scope event"))
            }
            return .store(store)
        case "section":
            return .section(SectionRef(store: store, section: try uint16("minor")))
        default:
            throw WireError(field: path.appending("scope"), reason: .invalidValue(value: Self.quoted(scope), expected: "store or section"))
        }
    }
}

extension JSONNode {
    /// Writes a region as `"major"` and, for a section, `"minor"`.
    func set(region: RegionScope) {
        set("major", region.store)
        setIfPresent("minor", region.section)
    }
}
