import CJSONC

// Store layouts: booleans, number lists and plan coordinates. Arrays of numbers sit one or two
// levels below an array element (`sections[2].polygon[4]`), deeper than ``FieldPath`` spells, so
// their error paths are built as text, only when an error needs one.
extension ObjectReader {
    /// An optional boolean; absent and `null` read as `nil`.
    func optionalBool(_ key: StaticString) throws(WireError) -> Bool? {
        guard let value = optional(key) else { return nil }
        guard json_object_get_type(value) == json_type_boolean else {
            throw WireError(field: path.appending(key), reason: .wrongType(expected: .boolean, found: JSONKind(of: value)))
        }
        return json_object_get_boolean(value) != 0
    }

    /// An optional array of store or section numbers, at most `limit` of them.
    func optionalNumberList(_ key: StaticString, limit: Int) throws(WireError) -> [UInt16]? {
        guard let list = optional(key) else { return nil }
        let field = path.appending(key)
        let count = try arrayCount(list, field: field, limit: limit)
        var numbers: [UInt16] = []
        numbers.reserveCapacity(count)
        for index in 0..<count {
            let element = json_object_array_get_idx(list, index)
            guard let element, json_object_get_type(element) == json_type_int else {
                throw WireError(field: "\(field)[\(index)]", reason: .wrongType(expected: .integer, found: JSONKind(of: element)))
            }
            let number = json_object_get_int64(element)
            guard (0...Int64(UInt16.max)).contains(number) else {
                throw WireError(field: "\(field)[\(index)]", reason: .outOfRange(value: Self.text(of: element), bounds: "0…65535"))
            }
            numbers.append(UInt16(number))
        }
        return numbers
    }

    /// An optional point `[x, y]` in metres.
    func optionalPoint(_ key: StaticString) throws(WireError) -> StoreLayout.PlanPoint? {
        guard let value = optional(key) else { return nil }
        return try point(value, field: path.appending(key))
    }

    /// An optional polygon `[[x, y], …]` of 3 to `limit` points.
    func optionalPolygon(_ key: StaticString, limit: Int) throws(WireError) -> [StoreLayout.PlanPoint]? {
        guard let list = optional(key) else { return nil }
        let field = path.appending(key)
        let count = try arrayCount(list, field: field, limit: limit)
        guard count >= 3 else {
            throw WireError(field: field, reason: .invalidValue(value: "\(count) point(s)", expected: "a polygon of at least 3 points"))
        }
        var points: [StoreLayout.PlanPoint] = []
        points.reserveCapacity(count)
        for index in 0..<count {
            points.append(try point(json_object_array_get_idx(list, index), field: "\(field)[\(index)]"))
        }
        return points
    }

    /// `[x, y]`: exactly two finite numbers within ±``StoreLayout/coordinateLimit`` metres.
    private func point(_ value: OpaquePointer?, field: String) throws(WireError) -> StoreLayout.PlanPoint {
        guard let value, json_object_get_type(value) == json_type_array else {
            throw WireError(field: field, reason: .wrongType(expected: .array, found: JSONKind(of: value)))
        }
        guard json_object_array_length(value) == 2 else {
            throw WireError(field: field, reason: .invalidValue(value: Self.text(of: value), expected: "[x, y] in metres"))
        }
        var coordinates: [Double] = []
        for index in 0..<2 {
            let element = json_object_array_get_idx(value, index)
            let type = json_object_get_type(element)
            guard let element, type == json_type_double || type == json_type_int else {
                throw WireError(field: "\(field)[\(index)]", reason: .wrongType(expected: .number, found: JSONKind(of: element)))
            }
            let number = json_object_get_double(element)
            guard StoreLayout.coordinateRange.contains(number) else {  // false for NaN as well
                let limit = WireNumbers.plain(StoreLayout.coordinateLimit)
                throw WireError(field: "\(field)[\(index)]", reason: .outOfRange(value: Self.text(of: element), bounds: "-\(limit)…\(limit) m"))
            }
            coordinates.append(number)
        }
        return StoreLayout.PlanPoint(x: coordinates[0], y: coordinates[1])
    }

    private func arrayCount(_ value: OpaquePointer, field: String, limit: Int) throws(WireError) -> Int {
        guard json_object_get_type(value) == json_type_array else {
            throw WireError(field: field, reason: .wrongType(expected: .array, found: JSONKind(of: value)))
        }
        let count = json_object_array_length(value)
        guard count <= limit else { throw WireError(field: field, reason: .tooManyItems(count: count, limit: limit)) }
        return count
    }
}
