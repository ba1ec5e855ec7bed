/// One value of a config document at its JSON path, read as the type the format expects: a
/// scalar (``read(_:)``), a number in a range, one of a set of names, an object member by member,
/// an array item by item. A value that does not fit is reported, with its path and location, and
/// read as nil.
public struct ConfigValue {
    /// The value as parsed.
    public let node: JSONNode
    /// Where it is in the document.
    public let path: ConfigPath
    /// The reader problems go to.
    public let reader: ConfigReader

    /// A value at `path`, reporting to `reader`.
    public init(node: JSONNode, path: ConfigPath, reader: ConfigReader) {
        self.node = node
        self.path = path
        self.reader = reader
    }

    /// Notes a problem with this value, at its path and location.
    public func report(_ message: String) {
        reader.report(message, at: path, node.location)
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = node.value { return true }
        return false
    }

    /// The value as a `T`; nil, reported, when it is not one (`null` included).
    public func read<T: ConfigScalar>(_ type: T.Type = T.self) -> T? {
        guard !isNull else {
            report("is null, expected \(T.expected)")
            return nil
        }
        do {
            return try T.read(node)
        } catch {
            report(error.message ?? "has the wrong type, expected \(T.expected), found \(node.summary)")
            return nil
        }
    }

    /// The value as an integer within `range`.
    public func integer(in range: ClosedRange<Int>) -> Int? {
        guard let number = read(Int.self) else { return nil }
        guard range.contains(number) else {
            report("must be \(range.lowerBound)–\(range.upperBound), got \(number)")
            return nil
        }
        return number
    }

    /// The value as a number within `range`.
    public func number(in range: ClosedRange<Double>) -> Double? {
        guard let number = read(Double.self) else { return nil }
        guard range.contains(number) else {
            report("must be \(JSONNode.text(of: range.lowerBound))–\(JSONNode.text(of: range.upperBound)), got \(JSONNode.text(of: number))")
            return nil
        }
        return number
    }

    /// The value as one of a fixed set of names; another name is reported with the list.
    public func choice<T: RawRepresentable & CaseIterable>(_ type: T.Type = T.self) -> T? where T.RawValue == String {
        guard let name = read(String.self) else { return nil }
        guard let value = T(rawValue: name) else {
            report("\"\(name)\" is not one of \(T.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", "))")
            return nil
        }
        return value
    }

    /// The value as an object, read member by member by `read`; the members `read` never asked
    /// for are then reported as unknown keys, with the nearest known one. Nil, reported, for a
    /// value that is not an object.
    public func object<T>(_ read: (inout ConfigObject) -> T?) -> T? {
        guard case .object(let members) = node.value else {
            report(isNull ? "is null, expected an object" : "has the wrong type, expected an object, found \(node.summary)")
            return nil
        }
        var object = ConfigObject(self, members: members)
        let result = read(&object)
        object.reportUnknownKeys()
        return result
    }

    /// The value as an array, each item read by `read` (nil for an item that cannot be used: it
    /// is left out). Nil, reported, for a value that is not an array. Stops once the reader is full.
    public func array<T>(_ read: (ConfigValue) -> T?) -> [T]? {
        guard case .array(let items) = node.value else {
            report(isNull ? "is null, expected an array" : "has the wrong type, expected an array, found \(node.summary)")
            return nil
        }
        var values: [T] = []
        values.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            if reader.isFull {
                reader.isIncomplete = true
                break
            }
            if let value = read(ConfigValue(node: item, path: path.appending(index: index), reader: reader)) { values.append(value) }
        }
        return values
    }
}
