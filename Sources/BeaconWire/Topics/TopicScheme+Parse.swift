import BeaconCore

extension TopicScheme {
    /// Parses a topic string received from the broker into a ``Topic``.
    ///
    /// Throws a ``TopicError`` naming the level at fault: wrong root, unknown kind, wrong level
    /// count, a store or section that is not a plain decimal 0–65535, an invalid id, an empty
    /// level, a wildcard or control character, or an over-long topic.
    public func parse(_ topic: String) throws(TopicError) -> Topic {
        let length = topic.utf8.count
        guard length <= Self.maxTopicLength else {
            throw TopicError(topic: topic, level: 0, reason: .tooLong(length: length, limit: Self.maxTopicLength))
        }
        let levels = try Self.split(topic)
        let base = rootLevels.count
        for (index, expected) in rootLevels.enumerated() {
            guard index < levels.count, levels[index] == expected else {
                throw TopicError(topic: topic, level: index, reason: .wrongRoot(expected: String(expected)))
            }
        }
        guard levels.count > base else {
            throw TopicError(topic: topic, level: base, reason: .wrongLevelCount(found: levels.count, expected: (base + 2)...(base + 4)))
        }
        let parser = LevelParser(topic: topic, levels: levels, base: base)

        switch levels[base] {
        case "sightings":
            try parser.expectCount(3...3)
            return .sightings(store: try parser.number(at: 1), gateway: try parser.gateway(at: 2))
        case "gateways":
            try parser.expectCount(3...3)
            let gateway = try parser.gateway(at: 1)
            try parser.expectWord("status", at: 2)
            return .gatewayStatus(gateway)
        case "events":
            try parser.expectCount(3...4)
            let store = try parser.number(at: 1)
            if levels.count == base + 3 {
                return .event(.store(store), try parser.transition(at: 2))
            }
            let section = try parser.number(at: 2)
            return .event(.section(SectionRef(store: store, section: section)), try parser.transition(at: 3))
        case "devices":
            try parser.expectCount(3...3)
            let device = try parser.identity(at: 1) { text throws(IdentityError) in try DeviceID(text) }
            try parser.expectWord("state", at: 2)
            return .deviceState(device)
        case "occupancy":
            try parser.expectCount(2...3)
            let store = try parser.number(at: 1)
            if levels.count == base + 2 { return .occupancy(.store(store)) }
            return .occupancy(.section(SectionRef(store: store, section: try parser.number(at: 2))))
        case "aggregators":
            try parser.expectCount(3...3)
            let id = try parser.identity(at: 1) { text throws(IdentityError) in try AggregatorID(text) }
            try parser.expectWord("status", at: 2)
            return .aggregatorStatus(id)
        case "stores":
            try parser.expectCount(3...3)
            let store = try parser.number(at: 1)
            try parser.expectWord("layout", at: 2)
            return .storeLayout(store)
        case "rejects":
            try parser.expectCount(2...2)
            return .rejects(try parser.identity(at: 1) { text throws(IdentityError) in try AggregatorID(text) })
        default:
            throw TopicError(topic: topic, level: base, reason: .unknownKind(String(levels[base])))
        }
    }
}

/// Reads the levels after the root; every index it takes is relative to the kind level.
private struct LevelParser {
    let topic: String
    let levels: [Substring]
    let base: Int

    /// Checks the number of levels after the root (kind included).
    func expectCount(_ range: ClosedRange<Int>) throws(TopicError) {
        let found = levels.count - base
        guard range.contains(found) else {
            let level = found < range.lowerBound ? levels.count : base + range.upperBound
            let expected = (base + range.lowerBound)...(base + range.upperBound)
            throw TopicError(topic: topic, level: level, reason: .wrongLevelCount(found: levels.count, expected: expected))
        }
    }

    /// A store or section: decimal, no sign, no leading zero except `0` itself, at most 65535.
    func number(at offset: Int) throws(TopicError) -> UInt16 {
        let text = levels[base + offset]
        var value = 0
        let valid = text.utf8.count <= 5 && !(text.utf8.count > 1 && text.utf8.first == UInt8(ascii: "0"))
            && text.utf8.allSatisfy { byte in
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return false }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                return true
            }
        guard valid, value <= Int(UInt16.max) else {
            throw TopicError(topic: topic, level: base + offset, reason: .invalidNumber(String(text)))
        }
        return UInt16(value)
    }

    func gateway(at offset: Int) throws(TopicError) -> GatewayID {
        try identity(at: offset) { text throws(IdentityError) in try GatewayID(text) }
    }

    func identity<ID>(at offset: Int, _ make: (String) throws(IdentityError) -> ID) throws(TopicError) -> ID {
        do {
            return try make(String(levels[base + offset]))
        } catch {
            throw TopicError(topic: topic, level: base + offset, reason: .invalidIdentity(error))
        }
    }

    func transition(at offset: Int) throws(TopicError) -> RegionTransition {
        let text = levels[base + offset]
        guard let transition = RegionTransition(rawValue: String(text)) else {
            throw TopicError(topic: topic, level: base + offset, reason: .unexpectedLevel(found: String(text), expected: "enter or exit"))
        }
        return transition
    }

    func expectWord(_ word: String, at offset: Int) throws(TopicError) {
        let text = levels[base + offset]
        guard text == word else {
            throw TopicError(topic: topic, level: base + offset, reason: .unexpectedLevel(found: String(text), expected: "\"\(word)\""))
        }
    }
}
