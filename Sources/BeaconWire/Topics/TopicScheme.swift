import BeaconCore

/// Builds and parses BeaconNet topics under one root (default `beaconnet`).
///
/// The root may span several levels (`acme/beaconnet`) so that a chain can share a broker with
/// other systems; it never holds wildcards. Building cannot fail (every part of a ``Topic`` is
/// already validated); parsing checks every level and says which one is wrong.
public struct TopicScheme: Hashable, Sendable {
    /// The root used when none is configured.
    public static let defaultRoot = "beaconnet"
    /// The longest root accepted, in bytes.
    public static let maxRootLength = 128
    /// The longest topic ``parse(_:)`` accepts, in bytes: the root plus the longest device id
    /// and a few short levels fit with room to spare.
    public static let maxTopicLength = 512

    /// The scheme with the default root `beaconnet`.
    public static let standard = TopicScheme(validatedRoot: defaultRoot)

    /// The root levels, joined with `/`, without a trailing `/`.
    public let root: String
    /// The root split into levels, compared level by level when parsing.
    let rootLevels: [Substring]

    /// Validates `root`: non-empty levels, no `+`, `#` or control characters, no leading `$`
    /// (reserved for broker topics such as `$SYS`), at most ``maxRootLength`` bytes.
    public init(root: String = TopicScheme.defaultRoot) throws(TopicError) {
        let length = root.utf8.count
        guard length <= Self.maxRootLength else {
            throw TopicError(topic: root, level: 0, reason: .tooLong(length: length, limit: Self.maxRootLength))
        }
        if root.utf8.first == UInt8(ascii: "$") {
            throw TopicError(topic: root, level: 0, reason: .forbiddenCharacter(UInt8(ascii: "$")))
        }
        let levels = try Self.split(root)
        self.init(validatedRoot: root, levels: levels)
    }

    private init(validatedRoot root: String, levels: [Substring]? = nil) {
        self.root = root
        self.rootLevels = levels ?? root.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// The topic string for `topic`, e.g. `beaconnet/sightings/12/gw-12-3a`.
    public func string(for topic: Topic) -> String {
        switch topic {
        case .sightings(let store, let gateway): "\(root)/sightings/\(store)/\(gateway.rawValue)"
        case .gatewayStatus(let gateway): "\(root)/gateways/\(gateway.rawValue)/status"
        case .event(.store(let store), let transition): "\(root)/events/\(store)/\(transition.rawValue)"
        case .event(.section(let ref), let transition):
            "\(root)/events/\(ref.store)/\(ref.section)/\(transition.rawValue)"
        case .deviceState(let device): "\(root)/devices/\(device.rawValue)/state"
        case .occupancy(.store(let store)): "\(root)/occupancy/\(store)"
        case .occupancy(.section(let ref)): "\(root)/occupancy/\(ref.store)/\(ref.section)"
        case .aggregatorStatus(let id): "\(root)/aggregators/\(id.rawValue)/status"
        case .rejects(let id): "\(root)/rejects/\(id.rawValue)"
        case .storeLayout(let store): "\(root)/stores/\(store)/layout"
        }
    }

    /// Splits a topic into levels, rejecting wildcards, control characters and empty levels.
    static func split(_ topic: String) throws(TopicError) -> [Substring] {
        var level = 0
        var levelIsEmpty = true
        for byte in topic.utf8 {
            if byte == UInt8(ascii: "/") {
                if levelIsEmpty { throw TopicError(topic: topic, level: level, reason: .emptyLevel) }
                level += 1
                levelIsEmpty = true
                continue
            }
            if byte == UInt8(ascii: "+") || byte == UInt8(ascii: "#") || byte < 0x20 || byte == 0x7F {
                throw TopicError(topic: topic, level: level, reason: .forbiddenCharacter(byte))
            }
            levelIsEmpty = false
        }
        if levelIsEmpty { throw TopicError(topic: topic, level: level, reason: .emptyLevel) }
        return topic.split(separator: "/", omittingEmptySubsequences: false)
    }
}
