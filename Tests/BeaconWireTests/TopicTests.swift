import BeaconCore
import BeaconWire
import Testing

@Suite("Topics")
struct TopicTests {
    struct Named: Sendable, CustomTestStringConvertible {
        let topic: Topic
        let string: String
        var testDescription: String { string }
    }

    static let every: [Named] = [
        Named(topic: .sightings(store: 12, gateway: Fixtures.gateway), string: "beaconnet/sightings/12/gw-12-3a"),
        Named(topic: .sightings(store: 0, gateway: try! GatewayID("gw-0")), string: "beaconnet/sightings/0/gw-0"),
        Named(topic: .gatewayStatus(Fixtures.gateway), string: "beaconnet/gateways/gw-12-3a/status"),
        Named(topic: .event(.store(12), .enter), string: "beaconnet/events/12/enter"),
        Named(topic: .event(.store(65535), .exit), string: "beaconnet/events/65535/exit"),
        Named(topic: .event(.section(Fixtures.shoes), .enter), string: "beaconnet/events/12/3/enter"),
        Named(topic: .event(.section(SectionRef(store: 12, section: 0)), .exit), string: "beaconnet/events/12/0/exit"),
        Named(topic: .deviceState(Fixtures.phone), string: "beaconnet/devices/ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207/state"),
        Named(topic: .deviceState(Fixtures.badge), string: "beaconnet/devices/mac-C4:7C:8D:6A:12:3F/state"),
        Named(topic: .occupancy(.store(12)), string: "beaconnet/occupancy/12"),
        Named(topic: .occupancy(.section(Fixtures.shoes)), string: "beaconnet/occupancy/12/3"),
        Named(topic: .aggregatorStatus(Fixtures.aggregator), string: "beaconnet/aggregators/agg-eu-1/status"),
        Named(topic: .rejects(Fixtures.aggregator), string: "beaconnet/rejects/agg-eu-1"),
        Named(topic: .storeLayout(12), string: "beaconnet/stores/12/layout"),
    ]

    @Test("every topic kind builds to its string and parses back", arguments: every)
    func roundTrip(_ named: Named) throws {
        let scheme = TopicScheme.standard
        #expect(scheme.string(for: named.topic) == named.string)
        #expect(try scheme.parse(named.string) == named.topic)
    }

    @Test("a multi-level root prefixes every topic", arguments: every)
    func customRoot(_ named: Named) throws {
        let scheme = try TopicScheme(root: "acme/beaconnet")
        let string = scheme.string(for: named.topic)
        #expect(string == "acme/" + named.string)
        #expect(try scheme.parse(string) == named.topic)
    }

    @Test("retained topics are the statuses, device states and occupancy")
    func retained() {
        #expect(Topic.deviceState(Fixtures.phone).isRetained)
        #expect(Topic.occupancy(.store(1)).isRetained)
        #expect(Topic.gatewayStatus(Fixtures.gateway).isRetained)
        #expect(Topic.aggregatorStatus(Fixtures.aggregator).isRetained)
        #expect(!Topic.sightings(store: 1, gateway: Fixtures.gateway).isRetained)
        #expect(!Topic.event(.store(1), .enter).isRetained)
        #expect(!Topic.rejects(Fixtures.aggregator).isRetained)
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let topic: String
        let level: Int
        let reason: TopicError.Reason
        var testDescription: String { topic.count > 60 ? String(topic.prefix(60)) + "…" : topic }
    }

    static let bad: [Bad] = [
        Bad(topic: "other/sightings/12/gw-1", level: 0, reason: .wrongRoot(expected: "beaconnet")),
        Bad(topic: "beaconnet", level: 1, reason: .wrongLevelCount(found: 1, expected: 3...5)),
        Bad(topic: "beaconnet/sighting/12/gw-1", level: 1, reason: .unknownKind("sighting")),
        Bad(topic: "beaconnet/sightings/12", level: 3, reason: .wrongLevelCount(found: 3, expected: 4...4)),
        Bad(topic: "beaconnet/sightings/12/gw-1/x", level: 4, reason: .wrongLevelCount(found: 5, expected: 4...4)),
        Bad(topic: "beaconnet/sightings/012/gw-1", level: 2, reason: .invalidNumber("012")),
        Bad(topic: "beaconnet/sightings/+12/gw-1", level: 2, reason: .forbiddenCharacter(UInt8(ascii: "+"))),
        Bad(topic: "beaconnet/sightings/-1/gw-1", level: 2, reason: .invalidNumber("-1")),
        Bad(topic: "beaconnet/sightings/65536/gw-1", level: 2, reason: .invalidNumber("65536")),
        Bad(topic: "beaconnet/sightings/1e3/gw-1", level: 2, reason: .invalidNumber("1e3")),
        Bad(topic: "beaconnet/sightings/ 12/gw-1", level: 2, reason: .invalidNumber(" 12")),
        Bad(topic: "beaconnet/sightings/12/gateway-1", level: 3, reason: .invalidIdentity(
            .badFormat(kind: "gateway id", text: "gateway-1", rule: "must be gw- followed by a-z, 0-9 or -"))),
        Bad(topic: "beaconnet/sightings/12/+", level: 3, reason: .forbiddenCharacter(UInt8(ascii: "+"))),
        Bad(topic: "beaconnet/sightings/#", level: 2, reason: .forbiddenCharacter(UInt8(ascii: "#"))),
        Bad(topic: "beaconnet/sightings//gw-1", level: 2, reason: .emptyLevel),
        Bad(topic: "beaconnet/sightings/12/gw-1/", level: 4, reason: .emptyLevel),
        Bad(topic: "/beaconnet/sightings/12/gw-1", level: 0, reason: .emptyLevel),
        Bad(topic: "beaconnet/sightings/12/gw-\u{1}", level: 3, reason: .forbiddenCharacter(0x01)),
        Bad(topic: "beaconnet/gateways/gw-1/state", level: 3, reason: .unexpectedLevel(found: "state", expected: "\"status\"")),
        Bad(topic: "beaconnet/events/12/entered", level: 3, reason: .unexpectedLevel(found: "entered", expected: "enter or exit")),
        Bad(topic: "beaconnet/events/12/3/4/enter", level: 5, reason: .wrongLevelCount(found: 6, expected: 4...5)),
        Bad(topic: "beaconnet/events/12/x/enter", level: 3, reason: .invalidNumber("x")),
        Bad(topic: "beaconnet/devices/dev 1/state", level: 2, reason: .invalidIdentity(MalformedPayloadTests.idError("dev 1"))),
        Bad(topic: "beaconnet/devices/ib-<img>x/state", level: 2, reason: .invalidIdentity(MalformedPayloadTests.idError("ib-<img>x"))),
        Bad(topic: "beaconnet/devices/" + String(repeating: "x", count: 97) + "/state", level: 2,
            reason: .invalidIdentity(.tooLong(kind: "device id", length: 97, limit: 96))),
        Bad(topic: "beaconnet/occupancy/12/3/4", level: 4, reason: .wrongLevelCount(found: 5, expected: 3...4)),
        Bad(topic: "beaconnet/aggregators/Agg/status", level: 2, reason: .invalidIdentity(
            .badFormat(kind: "aggregator id", text: "Agg", rule: "only a-z, 0-9 and - are allowed"))),
        Bad(topic: "beaconnet/rejects", level: 2, reason: .wrongLevelCount(found: 2, expected: 3...3)),
        Bad(topic: "beaconnet/rejects/agg-1/x", level: 3, reason: .wrongLevelCount(found: 4, expected: 3...3)),
        Bad(topic: "beaconnet/devices/" + String(repeating: "x", count: 600) + "/state", level: 0,
            reason: .tooLong(length: 624, limit: 512)),
    ]

    @Test("malformed topics are rejected at the right level with the right reason", arguments: bad)
    func rejected(_ bad: Bad) {
        #expect(throws: TopicError(topic: bad.topic, level: bad.level, reason: bad.reason)) {
            try TopicScheme.standard.parse(bad.topic)
        }
    }

    @Test("roots with wildcards, empty levels, a leading $ or too many bytes are refused",
          arguments: ["", "a//b", "beacon+net", "beacon#", "$SYS", "a/", String(repeating: "r", count: 129)])
    func badRoots(_ root: String) {
        #expect(throws: TopicError.self) { try TopicScheme(root: root) }
    }

    @Test("subscription filters")
    func filters() throws {
        let scheme = TopicScheme.standard
        #expect(scheme.everything == "beaconnet/#")
        #expect(scheme.allSightings == "beaconnet/sightings/+/+")
        #expect(scheme.sightings(store: 12) == "beaconnet/sightings/12/+")
        #expect(scheme.allGatewayStatuses == "beaconnet/gateways/+/status")
        #expect(scheme.allEvents == "beaconnet/events/#")
        #expect(scheme.events(store: 12) == "beaconnet/events/12/#")
        #expect(scheme.events(section: Fixtures.shoes) == "beaconnet/events/12/3/+")
        #expect(scheme.allDeviceStates == "beaconnet/devices/+/state")
        #expect(scheme.allOccupancy == "beaconnet/occupancy/#")
        #expect(scheme.occupancy(store: 12) == "beaconnet/occupancy/12/#")
        #expect(scheme.allAggregatorStatuses == "beaconnet/aggregators/+/status")
        #expect(scheme.allRejects == "beaconnet/rejects/+")
        #expect(try TopicScheme(root: "acme/bn").allSightings == "acme/bn/sightings/+/+")
    }

    @Test("errors read as one line that names the level")
    func description() {
        let error = TopicError(topic: "beaconnet/sightings/012/gw-1", level: 2, reason: .invalidNumber("012"))
        #expect(error.description
            == "topic \"beaconnet/sightings/012/gw-1\", level 2 (\"012\"): \"012\" is not a decimal 0–65535 (no sign, no leading zeros)")
        #expect(error.reason.code == "invalid_topic_number")
    }
}
