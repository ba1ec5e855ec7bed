public import BeaconCore
import CJSONC

/// A JSON document as a Swift value, written (and read back) with json-c: the effective config
/// that `--print-config` shows, the values of the flags that override config keys, and the lines
/// `beacon-edge decode` prints. The config file itself is read by BeaconCore's ``JSONDocument``,
/// which knows where each value is in the text.
///
/// Objects keep their keys in file order (a config printed back reads like the file), and
/// integers stay integers (json-c tells `1` from `1.0`, so a port given as `1883.5` is an error
/// rather than silently truncated).
public enum JSONValue: Sendable, Equatable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// A number without fraction or exponent, within Int64.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// An array.
    case array([JSONValue])
    /// An object; keys in order, each at most once.
    case object([(key: String, value: JSONValue)])

    /// Parses JSON text; throws a message with json-c's reason and the byte offset.
    public static func parse(_ bytes: [UInt8]) throws(JSONValueError) -> JSONValue {
        guard let tokener = json_tokener_new() else { throw JSONValueError(message: "json-c could not allocate a parser") }
        defer { json_tokener_free(tokener) }
        json_tokener_set_flags(tokener, Int32(JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8))
        let parsed: OpaquePointer? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                json_tokener_parse_ex(tokener, chars.baseAddress, Int32(clamping: chars.count))
            }
        }
        let status = json_tokener_get_error(tokener)
        guard status == json_tokener_success, let parsed else {
            let offset = Int(json_tokener_get_parse_end(tokener))
            let reason = status == json_tokener_continue
                ? "the text ends inside a value" : String(cString: json_tokener_error_desc(status))
            throw JSONValueError(message: "not valid JSON at byte \(offset): \(reason)")
        }
        defer { json_object_put(parsed) }
        let end = Int(json_tokener_get_parse_end(tokener))
        if bytes[end...].contains(where: { ![0x20, 0x0A, 0x0D, 0x09].contains($0) }) {
            throw JSONValueError(message: "not valid JSON at byte \(end): text after the end of the document")
        }
        return JSONValue(borrowing: parsed)
    }

    /// Converts a json-c value (borrowed, not released here).
    init(borrowing object: OpaquePointer?) {
        guard let object else {
            self = .null
            return
        }
        switch json_object_get_type(object) {
        case json_type_boolean: self = .bool(json_object_get_boolean(object) != 0)
        case json_type_int: self = .int(json_object_get_int64(object))
        case json_type_double: self = .double(json_object_get_double(object))
        case json_type_string:
            let length = Int(json_object_get_string_len(object))
            let text = json_object_get_string(object).map {
                $0.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
            }
            self = .string(text ?? "")
        case json_type_array:
            let count = json_object_array_length(object)
            self = .array((0..<count).map { JSONValue(borrowing: json_object_array_get_idx(object, $0)) })
        case json_type_object:
            var members: [(key: String, value: JSONValue)] = []
            var entry = bn_json_object_first(object)
            while let member = entry {
                let key = String(cString: bn_json_entry_key(member))
                members.append((key, JSONValue(borrowing: bn_json_entry_value(member))))
                entry = bn_json_entry_next(member)
            }
            self = .object(members)
        default:
            self = .null
        }
    }

    /// The JSON text: one compact line, or indented by two spaces when `pretty`. `/` is not escaped.
    public func serialized(pretty: Bool = false) -> String {
        let object = makeObject()
        defer { json_object_put(object) }
        let flags = (pretty ? JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED : JSON_C_TO_STRING_PLAIN)
            | JSON_C_TO_STRING_NOSLASHESCAPE
        var length = 0
        guard let text = json_object_to_json_string_length(object, Int32(flags), &length) else { return "null" }
        return text.withMemoryRebound(to: UInt8.self, capacity: length) {
            String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self)
        }
    }

    /// A new json-c value owning one reference (nil for `null`).
    private func makeObject() -> OpaquePointer? {
        switch self {
        case .null: return nil
        case .bool(let value): return json_object_new_boolean(value ? 1 : 0)
        case .int(let value): return json_object_new_int64(value)
        case .double(let value): return json_object_new_double(value)
        case .string(let value):
            guard !value.isEmpty else { return json_object_new_string("") }
            var value = value
            return value.withUTF8 { bytes in
                bytes.withMemoryRebound(to: CChar.self) { chars in
                    json_object_new_string_len(chars.baseAddress, Int32(clamping: chars.count))
                }
            }
        case .array(let items):
            let array = json_object_new_array_ext(Int32(clamping: max(items.count, 1)))
            for item in items { json_object_array_add(array, item.makeObject()) }
            return array
        case .object(let members):
            let object = json_object_new_object()
            for (key, value) in members { json_object_object_add(object, key, value.makeObject()) }
            return object
        }
    }

    /// The member `key` of an object; nil for a missing key or a non-object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    /// Sets the member at `path` (creating objects on the way), replacing what was there.
    public mutating func set(_ path: ArraySlice<String>, to value: JSONValue) {
        guard let key = path.first else {
            self = value
            return
        }
        var members: [(key: String, value: JSONValue)] = []
        if case .object(let existing) = self { members = existing }
        if let index = members.firstIndex(where: { $0.key == key }) {
            members[index].value.set(path.dropFirst(), to: value)
        } else {
            var child = JSONValue.null
            child.set(path.dropFirst(), to: value)
            members.append((key, child))
        }
        self = .object(members)
    }

    /// The value as the config readers take it, with no location (it is not from the file).
    public var node: JSONNode {
        switch self {
        case .null: return JSONNode(.null)
        case .bool(let value): return JSONNode(.bool(value))
        case .int(let value): return JSONNode(.number(Double(value)))
        case .double(let value): return JSONNode(.number(value))
        case .string(let value): return JSONNode(.string(value))
        case .array(let items): return JSONNode(.array(items.map(\.node)))
        case .object(let members): return JSONNode(.object(members.map { JSONMember(key: $0.key, value: $0.value.node) }))
        }
    }

    /// Compares values, objects member by member in order.
    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.int(a), .int(b)): return a == b
        case let (.double(a), .double(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: return false
        }
    }
}

/// Text that is not valid JSON.
public struct JSONValueError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, with json-c's reason and the byte offset.
    public var message: String
    /// The same as ``message``.
    public var description: String { message }
}
