import CJSONC

/// The baseline: json-c alone, as a C programmer would use it. Parse with one reused tokener (the
/// same strict, UTF-8-validating flags as BeaconWire) and read every field of every sighting with
/// `json_object_object_get_ex`, building no Swift value at all.
final class BareJSONC {
    private let tokener: UnsafeMutablePointer<json_tokener>

    init() {
        tokener = json_tokener_new_ex(9)!
        json_tokener_set_flags(tokener, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8)
    }

    deinit { json_tokener_free(tokener) }

    /// Walks one batch; returns the sightings seen and a checksum of what was read.
    func walk(_ payload: [UInt8]) -> (items: Int, checksum: Int) {
        payload.withUnsafeBytes { raw in
            json_tokener_reset(tokener)
            guard let root = json_tokener_parse_ex(tokener, raw.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(raw.count)) else {
                return (0, 0)
            }
            defer { json_object_put(root) }
            var checksum = 0
            var value: OpaquePointer?
            if json_object_object_get_ex(root, "v", &value) != 0 { checksum &+= Int(json_object_get_int64(value)) }
            if json_object_object_get_ex(root, "gw", &value) != 0 { checksum &+= Int(json_object_get_string_len(value)) }
            if json_object_object_get_ex(root, "seq", &value) != 0 { checksum &+= Int(json_object_get_int64(value)) }
            if json_object_object_get_ex(root, "sent", &value) != 0 { checksum &+= Int(json_object_get_int64(value)) }
            guard json_object_object_get_ex(root, "sightings", &value) != 0, let list = value else { return (0, checksum) }
            let count = json_object_array_length(list)
            for index in 0..<count {
                guard let item = json_object_array_get_idx(list, index) else { continue }
                if json_object_object_get_ex(item, "dev", &value) != 0 {
                    checksum &+= Int(json_object_get_string_len(value)) &+ Int(json_object_get_string(value)?.pointee ?? 0)
                }
                if json_object_object_get_ex(item, "t", &value) != 0 { checksum &+= Int(json_object_get_int64(value)) }
                if json_object_object_get_ex(item, "rssi", &value) != 0 { checksum &+= Int(json_object_get_int64(value)) }
                if json_object_object_get_ex(item, "tx", &value) != 0 { checksum &+= Int(json_object_get_int64(value)) }
                if json_object_object_get_ex(item, "addr", &value) != 0 { checksum &+= Int(json_object_get_string_len(value)) }
            }
            return (count, checksum)
        }
    }
}
