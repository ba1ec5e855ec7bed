/// One object of a config document being read member by member (inside
/// ``ConfigValue/object(_:)``). The keys asked for are the keys the object may have: once read,
/// every other member is reported as an unknown key, with the nearest asked-for key as a "did you
/// mean" — so a typo such as `dwel_s` is an error instead of a default silently left in force.
///
/// A member that is absent or `null` reads as absent; ``required(_:expecting:)`` reports it.
public struct ConfigObject {
    /// The object as a value.
    public let value: ConfigValue
    private let members: [JSONMember]
    private var asked: [String] = []

    init(_ value: ConfigValue, members: [JSONMember]) {
        self.value = value
        self.members = members
    }

    /// The member `key`, nil when absent or `null`.
    public mutating func member(_ key: String) -> ConfigValue? {
        asked.append(key)
        guard let member = members.first(where: { $0.key == key }) else { return nil }
        let found = ConfigValue(node: member.value, path: value.path.appending(key), reader: value.reader)
        return found.isNull ? nil : found
    }

    /// The member `key`, which must be there: absent or `null`, it is reported as missing (with
    /// `hint` when given, e.g. what the key is for) and nil. `expecting` names what it takes.
    public mutating func required(_ key: String, expecting: String, hint: String? = nil) -> ConfigValue? {
        if let found = member(key) { return found }
        let path = value.path.appending(key)
        if let null = members.first(where: { $0.key == key }) {
            value.reader.report("is null, expected \(expecting)", at: path, null.value.location)
        } else {
            value.reader.report("is required but missing" + (hint.map { ": \($0)" } ?? ""), at: path, value.node.location)
        }
        return nil
    }

    /// The member `key` as a `T`, nil when absent.
    public mutating func optional<T: ConfigScalar>(_ key: String, as type: T.Type = T.self) -> T? {
        member(key)?.read(T.self)
    }

    /// The member `key` as a `T`, which must be there.
    public mutating func required<T: ConfigScalar>(_ key: String, as type: T.Type = T.self, hint: String? = nil) -> T? {
        required(key, expecting: T.expected, hint: hint)?.read(T.self)
    }

    /// Sets `target` to the member `key` when it is there and a `T`; leaves it (the default) otherwise.
    public mutating func read<T: ConfigScalar>(_ key: String, into target: inout T) {
        if let found = optional(key, as: T.self) { target = found }
    }

    /// Sets `target` to the member `key` when it is there and one of `T`'s names.
    public mutating func read<T: RawRepresentable & CaseIterable>(_ key: String, into target: inout T) where T.RawValue == String {
        if let found = member(key)?.choice(T.self) { target = found }
    }

    /// Reads the optional `comment` member any object of the format may carry (a string, not used).
    public mutating func comment() {
        _ = optional("comment", as: String.self)
    }

    /// Reports every member no read asked for.
    mutating func reportUnknownKeys() {
        let known = asked.reduce(into: [String]()) { list, key in if !list.contains(key) { list.append(key) } }
        for member in members where !known.contains(member.key) {
            let hint = KeySuggestion.nearest(to: member.key, in: known).map { "did you mean \"\($0)\"?" }
                ?? "known here: \(known.sorted().joined(separator: ", "))"
            value.reader.reportKey("unknown key (\(hint))", at: value.path.appending(member.key), member.keyLocation ?? member.value.location)
        }
    }
}
