import CJSONC

// Members of a store layout: booleans, number lists and plan coordinates. Keys are static
// strings json-c does not copy, as for every other member.
extension JSONNode {
    private func add(member key: StaticString, _ value: OpaquePointer?) {
        json_object_object_add_ex(raw, key.cString, value, UInt32(JSON_C_OBJECT_ADD_KEY_IS_NEW | JSON_C_OBJECT_ADD_CONSTANT_KEY))
    }

    func set(_ key: StaticString, _ value: Bool) { add(member: key, json_object_new_boolean(value ? 1 : 0)) }

    /// An array of store or section numbers.
    func set(_ key: StaticString, numbers: [UInt16]) {
        let list = JSONNode.array(capacity: numbers.count)
        for number in numbers { json_object_array_add(list.raw, json_object_new_int64(Int64(number))) }
        set(key, list)
    }

    /// A point as `[x, y]`, millimetres.
    func set(_ key: StaticString, point: StoreLayout.PlanPoint) {
        set(key, JSONNode.pair(point))
    }

    /// A polygon as `[[x, y], …]`.
    func set(_ key: StaticString, polygon: [StoreLayout.PlanPoint]) {
        let list = JSONNode.array(capacity: polygon.count)
        for point in polygon { list.append(JSONNode.pair(point)) }
        set(key, list)
    }

    private static func pair(_ point: StoreLayout.PlanPoint) -> JSONNode {
        let pair = JSONNode.array(capacity: 2)
        for value in [point.x, point.y] {
            let text = WireNumbers.fixed(value, decimals: 3)
            json_object_array_add(pair.raw, json_object_new_double_s(Double(text) ?? 0, text))
        }
        return pair
    }
}
