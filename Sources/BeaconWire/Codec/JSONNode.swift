import CJSONC

/// A json-c object or array being built for encoding. Not copyable: it holds one reference,
/// released when the node goes away; adding a node to another takes a reference of its own.
struct JSONNode: ~Copyable {
    /// The json-c value; this node owns one reference to it.
    let raw: OpaquePointer

    private init(raw: OpaquePointer?) {
        guard let raw else { fatalError("json-c could not allocate a value: out of memory") }
        self.raw = raw
    }

    /// A new, empty object.
    static func object() -> JSONNode { JSONNode(raw: json_object_new_object()) }

    /// A new, empty array with room for `capacity` elements.
    static func array(capacity: Int) -> JSONNode {
        JSONNode(raw: json_object_new_array_ext(Int32(clamping: max(capacity, 1))))
    }

    deinit { json_object_put(raw) }

    // MARK: Object members (keys are static strings json-c does not copy)

    private func add(_ key: StaticString, _ value: OpaquePointer?) {
        // The key is new in every payload we write and lives forever in the binary.
        json_object_object_add_ex(raw, key.cString, value, Self.addFlags)
    }

    private static let addFlags = UInt32(JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY)

    func set(_ key: StaticString, _ value: Int64) { add(key, json_object_new_int64(value)) }
    func set(_ key: StaticString, _ value: Int) { add(key, json_object_new_int64(Int64(value))) }
    func set(_ key: StaticString, _ value: UInt16) { add(key, json_object_new_int64(Int64(value))) }
    func set(_ key: StaticString, _ value: UInt64) { add(key, json_object_new_uint64(value)) }
    func set(_ key: StaticString, _ value: String) { add(key, Self.string(value)) }

    /// A number with at most `decimals` places, written in its short decimal form.
    func set(_ key: StaticString, _ value: Double, decimals: Int) {
        let text = WireNumbers.fixed(value, decimals: decimals)
        add(key, json_object_new_double_s(Double(text) ?? 0, text))
    }

    func set(_ key: StaticString, _ node: borrowing JSONNode) { add(key, json_object_get(node.raw)) }

    func setIfPresent(_ key: StaticString, _ value: Int64?) { if let value { set(key, value) } }
    func setIfPresent(_ key: StaticString, _ value: UInt16?) { if let value { set(key, value) } }
    func setIfPresent(_ key: StaticString, _ value: UInt64?) { if let value { set(key, value) } }
    func setIfPresent(_ key: StaticString, _ value: String?) { if let value { set(key, value) } }
    func setIfPresent(_ key: StaticString, _ value: Double?, decimals: Int) {
        if let value { set(key, value, decimals: decimals) }
    }

    /// A member whose key is only known at run time (counter maps); json-c copies the key.
    func set(dynamicKey key: String, _ value: UInt64) {
        json_object_object_add(raw, key, json_object_new_uint64(value))
    }

    /// Whether an object has no members (used to leave empty counter objects out).
    var isEmpty: Bool { bn_json_object_length(raw) == 0 }

    // MARK: Array elements

    func append(_ node: borrowing JSONNode) { json_object_array_add(raw, json_object_get(node.raw)) }

    // MARK: Output

    /// The compact JSON text (`/` not escaped), copied out of json-c.
    func serialized() -> [UInt8] {
        var length = 0
        guard let text = json_object_to_json_string_length(raw, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE, &length) else {
            fatalError("json-c could not serialise a value: out of memory")
        }
        return [UInt8](UnsafeRawBufferPointer(start: text, count: length))
    }

    /// A json-c string with the exact bytes of `value` (embedded NULs included).
    private static func string(_ value: String) -> OpaquePointer? {
        var value = value
        return value.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                json_object_new_string_len(chars.baseAddress ?? ("" as StaticString).cString, Int32(clamping: chars.count))
            }
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
