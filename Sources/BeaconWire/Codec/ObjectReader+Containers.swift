import BeaconCore
import CJSONC

// Nested objects, arrays, counter maps and regions.
extension ObjectReader {
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
            let field = map.path.appending(payloadKey: name)
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
