import CJSONC

/// One json-c tokener, reused across payloads (`json_tokener_new_ex` allocates; resetting is
/// cheap). Not copyable: exactly one owner frees the C handle.
///
/// A parse that fails gets the next one a fresh tokener: `json_tokener_reset` leaves a half-read
/// `\uD800`…`\uDBFF` escape pending (json-c keeps its `high_surrogate` across resets), and the next
/// document's first `\u` escape would then gain a U+FFFD — one bad payload would corrupt a string of
/// the next good one, or make its ids invalid. Failures are rare; a tokener costs one allocation.
struct JSONTokener: ~Copyable {
    /// The C handle; only this value's owner uses it, from one thread at a time.
    private var handle: UnsafeMutablePointer<json_tokener>
    /// The deepest nesting accepted (a lone object is depth 1).
    let maxDepth: Int

    init(maxDepth: Int) {
        self.maxDepth = max(1, min(maxDepth, 1000))
        self.handle = Self.makeHandle(maxDepth: self.maxDepth)
    }

    private static func makeHandle(maxDepth: Int) -> UnsafeMutablePointer<json_tokener> {
        // json-c's depth counts one more than the levels it lets through.
        guard let handle = json_tokener_new_ex(Int32(maxDepth + 1)) else {
            fatalError("json_tokener_new_ex failed: out of memory")
        }
        // Strict: no trailing commas or garbage, no leading zeros. UTF-8 is validated before
        // parsing, faster than json-c's byte-at-a-time check (see UTF8Validation).
        json_tokener_set_flags(handle, JSON_TOKENER_STRICT)
        return handle
    }

    deinit { json_tokener_free(handle) }

    /// Parses one complete JSON document. The caller owns the returned root and must
    /// `json_object_put` it. A JSON `null` document is reported as a wrong type, not returned.
    /// `members` is how many object members the text declares, repeated keys included (the
    /// parsed tree keeps one per distinct key: see ``DeclaredMembers``).
    mutating func parse(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> (root: OpaquePointer, members: Int) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else {
            throw WireError(field: "", reason: .invalidJSON(offset: 0, description: "unexpected end of data"))
        }
        // One pass counts the members and tells an all-ASCII payload (nearly all are) from one
        // that needs the full UTF-8 check.
        let scan = bn_json_prescan(start.assumingMemoryBound(to: UInt8.self), bytes.count)
        if scan.high != 0, let bad = UTF8Validation.firstInvalidOffset(bytes) {
            throw WireError(field: "", reason: .invalidUTF8(offset: bad))
        }
        do {
            return (try parse(start, count: bytes.count), scan.members)
        } catch {
            json_tokener_free(handle)
            handle = Self.makeHandle(maxDepth: maxDepth)
            throw error
        }
    }

    /// Runs json-c over `count` bytes of UTF-8 at `start`.
    private func parse(_ start: UnsafeRawPointer, count: Int) throws(WireError) -> OpaquePointer {
        json_tokener_reset(handle)
        let root = json_tokener_parse_ex(handle, start.assumingMemoryBound(to: CChar.self), Int32(clamping: count))
        let status = json_tokener_get_error(handle)
        let end = json_tokener_get_parse_end(handle)
        if status == json_tokener_continue {
            // A bare `null`, `true` or number could still go on; json-c decides on a NUL byte.
            // Feed one so that a top-level scalar is named as such rather than as truncated.
            if let scalar = json_tokener_parse_ex(handle, ("" as StaticString).cString, 1) {
                defer { json_object_put(scalar) }
                throw WireError(field: "", reason: .wrongType(expected: .object, found: JSONKind(of: scalar)))
            }
            if json_tokener_get_error(handle) == json_tokener_success {
                throw WireError(field: "", reason: .wrongType(expected: .object, found: .null))
            }
        }
        guard status == json_tokener_success else {
            json_object_put(root)
            throw WireError(field: "", reason: reason(for: status, at: end, length: count))
        }
        guard end == count else {
            // json-c stops at a NUL byte and reports success; anything after the document is garbage.
            json_object_put(root)
            throw WireError(field: "", reason: .invalidJSON(offset: end, description: "unexpected data after the JSON value"))
        }
        guard let root else { throw WireError(field: "", reason: .wrongType(expected: .object, found: .null)) }
        return root
    }

    private func reason(for status: json_tokener_error, at offset: Int, length: Int) -> WireError.Reason {
        switch status {
        case json_tokener_error_depth:
            return .tooDeep(limit: maxDepth)
        case json_tokener_error_parse_utf8_string:
            return .invalidUTF8(offset: offset)
        case json_tokener_continue:
            return .invalidJSON(offset: length, description: "unexpected end of data")
        default:
            return .invalidJSON(offset: offset, description: String(cString: json_tokener_error_desc(status)))
        }
    }
}
