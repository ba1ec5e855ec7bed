public import BeaconCore

/// Why a topic string is not a BeaconNet topic (or a root is not a usable topic root): the topic,
/// the index of the offending level (0-based, counting the root's levels) and the reason.
public struct TopicError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The topic as received (truncated in ``description`` when very long).
    public var topic: String
    /// The 0-based index of the level at fault; for a missing level, the index it should have had.
    public var level: Int
    /// What was wrong.
    public var reason: Reason

    /// Creates an error for `topic` at `level`.
    public init(topic: String, level: Int, reason: Reason) {
        self.topic = topic
        self.level = level
        self.reason = reason
    }

    /// What was wrong with a topic level.
    public enum Reason: Sendable, Equatable {
        /// The topic does not start with the scheme's root; `expected` is that root level.
        case wrongRoot(expected: String)
        /// The level after the root names no topic kind (`sightings`, `gateways`, …).
        case unknownKind(String)
        /// The topic has `found` levels; its kind needs a count in `expected` (root included).
        case wrongLevelCount(found: Int, expected: ClosedRange<Int>)
        /// A fixed level holds another word, e.g. `gateways/gw-1/state` instead of `…/status`.
        case unexpectedLevel(found: String, expected: String)
        /// A store or section level is not a decimal 0–65535 without sign or leading zeros.
        case invalidNumber(String)
        /// A gateway, device or aggregator level breaks the identity rules.
        case invalidIdentity(IdentityError)
        /// A level is empty (`a//b`, a leading or trailing `/`).
        case emptyLevel
        /// A level contains `+`, `#`, `$` at the start of the root, or a control character
        /// (byte value shown); topics, unlike filters, never hold wildcards.
        case forbiddenCharacter(UInt8)
        /// The topic (or root) is longer than its bound, in bytes.
        case tooLong(length: Int, limit: Int)

        /// A short, stable code for metrics and dead letters, e.g. `invalid_topic_number`.
        public var code: String {
            switch self {
            case .wrongRoot: "wrong_topic_root"
            case .unknownKind: "unknown_topic_kind"
            case .wrongLevelCount: "wrong_topic_level_count"
            case .unexpectedLevel: "unexpected_topic_level"
            case .invalidNumber: "invalid_topic_number"
            case .invalidIdentity: "invalid_topic_identity"
            case .emptyLevel: "empty_topic_level"
            case .forbiddenCharacter: "forbidden_topic_character"
            case .tooLong: "topic_too_long"
            }
        }
    }

    public var description: String {
        let levels = topic.split(separator: "/", omittingEmptySubsequences: false)
        let shown = topic.utf8.count > 160 ? String(topic.prefix(160)) + "…" : topic
        var text = "topic \"\(shown)\", level \(level)"
        if level < levels.count, levels[level].utf8.count <= 100 { text += " (\"\(levels[level])\")" }
        switch reason {
        case .wrongRoot(let expected): text += ": expected the root \"\(expected)\""
        case .unknownKind(let kind): text += ": unknown topic kind \"\(kind)\""
        case .wrongLevelCount(let found, let expected):
            let wanted = expected.count == 1 ? "\(expected.lowerBound)" : "\(expected.lowerBound)…\(expected.upperBound)"
            text += ": \(found) levels, expected \(wanted)"
        case .unexpectedLevel(let found, let expected): text += ": \"\(found)\" where \(expected) belongs"
        case .invalidNumber(let found):
            text += ": \"\(found)\" is not a decimal 0–65535 (no sign, no leading zeros)"
        case .invalidIdentity(let error): text += ": \(error)"
        case .emptyLevel: text += ": empty level"
        case .forbiddenCharacter(let byte):
            text += ": forbidden character 0x\(String(byte, radix: 16, uppercase: true))"
        case .tooLong(let length, let limit): text += ": \(length) bytes is longer than the limit of \(limit)"
        }
        return text
    }
}
