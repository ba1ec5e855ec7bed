import BeaconCore
import CJSONC

// Strings, identities and enumerations: values are checked on json-c's bytes before a
// `String` is built, and ids before an id is built.
extension ObjectReader {
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
        String(decoding: try bytes(value, key, maxLength: maxLength), as: UTF8.self)  // json-c validated the UTF-8
    }

    /// The bytes of a string value of at most `maxLength` bytes, borrowed from json-c.
    func bytes(_ value: OpaquePointer, _ key: StaticString, maxLength: Int) throws(WireError) -> UnsafeBufferPointer<UInt8> {
        let buffer = try bytes(value, key)
        guard buffer.count <= maxLength else {
            throw WireError(field: path.appending(key), reason: .tooLong(length: buffer.count, limit: maxLength))
        }
        return buffer
    }

    /// A required store or section name: at most ``WireBounds/maxNameBytes`` bytes, and the
    /// characters ``DisplayName`` allows (no controls, no bidirectional controls).
    func name(_ key: StaticString) throws(WireError) -> String {
        try name(required(key, .string), key)
    }

    /// An optional store or section name.
    func optionalName(_ key: StaticString) throws(WireError) -> String? {
        guard let value = optional(key) else { return nil }
        return try name(value, key)
    }

    private func name(_ value: OpaquePointer, _ key: StaticString) throws(WireError) -> String {
        let text = try string(value, key, maxLength: WireBounds.maxNameBytes)
        guard let problem = DisplayName.unfitCharacter(in: text) else { return text }
        throw WireError(
            field: path.appending(key),
            reason: .invalidValue(
                value: DisplayName.printable(text), expected: "a name without control characters, line separators or bidirectional controls (\(problem))"))
    }

    /// A required device id, validated on the borrowed bytes so only a valid id allocates.
    func deviceID(_ key: StaticString) throws(WireError) -> DeviceID {
        try deviceID(required(key, .string), key)
    }

    /// A device id value.
    @inline(__always)
    func deviceID(_ value: OpaquePointer, _ key: StaticString) throws(WireError) -> DeviceID {
        DeviceID(validatedUTF8: try deviceBytes(value, key))
    }

    /// The bytes of a device id value, validated, borrowed from json-c.
    @inline(__always)
    func deviceBytes(_ value: OpaquePointer, _ key: StaticString) throws(WireError) -> UnsafeBufferPointer<UInt8> {
        let buffer = try bytes(value, key)
        do {
            try DeviceID.validate(utf8: buffer)
        } catch {
            throw WireError(field: path.appending(key), reason: .invalidIdentity(error))
        }
        return buffer
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
}
