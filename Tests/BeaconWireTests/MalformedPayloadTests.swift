import BeaconCore
@testable import BeaconWire
import Testing

/// Hostile and broken payloads: each is rejected with the field and reason a person needs.
@Suite("Malformed payloads")
struct MalformedPayloadTests {
    /// The payload type a case is decoded as.
    enum Kind: Sendable {
        case batch, event, state, gateway, aggregator, occupancy, layout

        func decode(_ bytes: [UInt8], _ decoder: WireDecoder) throws(WireError) {
            switch self {
            case .batch: _ = try SightingBatch.decode(bytes, using: decoder)
            case .event: _ = try RegionEvent.decode(bytes, using: decoder)
            case .state: _ = try DeviceState.decode(bytes, using: decoder)
            case .gateway: _ = try GatewayStatus.decode(bytes, using: decoder)
            case .aggregator: _ = try AggregatorStatus.decode(bytes, using: decoder)
            case .occupancy: _ = try Occupancy.decode(bytes, using: decoder)
            case .layout: _ = try StoreLayout.decode(bytes, using: decoder)
            }
        }
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        let name: String
        let kind: Kind
        let bytes: [UInt8]
        let limits: WireLimits
        let expected: WireError
        var testDescription: String { name }

        /// A sighting batch.
        init(_ name: String, _ json: String, limits: WireLimits = .default, _ field: String, _ reason: WireError.Reason) {
            self.init(.batch, name, bytes: Array(json.utf8), limits: limits, field, reason)
        }

        init(_ name: String, bytes: [UInt8], limits: WireLimits = .default, _ field: String, _ reason: WireError.Reason) {
            self.init(.batch, name, bytes: bytes, limits: limits, field, reason)
        }

        init(_ kind: Kind, _ name: String, _ json: String, limits: WireLimits = .default, _ field: String, _ reason: WireError.Reason) {
            self.init(kind, name, bytes: Array(json.utf8), limits: limits, field, reason)
        }

        init(_ kind: Kind, _ name: String, bytes: [UInt8], limits: WireLimits = .default, _ field: String, _ reason: WireError.Reason) {
            self.name = name
            self.kind = kind
            self.bytes = bytes
            self.limits = limits
            self.expected = WireError(field: field, reason: reason)
        }
    }

    static let device = "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-207"
    static let good = #"{"dev":"\#(device)","t":1732349999412,"rssi":-67,"tx":-59}"#
    static let counts = "0…9007199254740991"
    static let nameRule = "a name without control characters, line separators or bidirectional controls"

    /// What BeaconCore's ``DeviceID`` says of `text`: every decoder refuses an id for the same reason.
    static func idError(_ text: String) -> IdentityError {
        do {
            _ = try DeviceID(text)
            preconditionFailure("\(text) is a valid device id")
        } catch {
            return error
        }
    }
    static let times = "1420070400000…4102444799999 ms (Unix time)"

    /// A batch whose second sighting is `sighting` (the first is valid), so paths say `[1]`.
    static func batch(_ sighting: String, head: String = #""v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000"#) -> String {
        #"{\#(head),"sightings":[\#(good),\#(sighting)]}"#
    }

    static func batch(count: Int) -> [UInt8] {
        Array(#"{"v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000,"sightings":["#.utf8)
            + Array(repeating: Array(good.utf8) + [UInt8(ascii: ",")], count: count).joined().dropLast()
            + Array("]}".utf8)
    }

    static let cases: [Bad] = [
        // Not JSON, or not all of it.
        Bad("empty payload", "", "", .invalidJSON(offset: 0, description: "unexpected end of data")),
        Bad("whitespace only", " \n\t", "", .invalidJSON(offset: 3, description: "unexpected end of data")),
        Bad("truncated JSON", #"{"v":1,"gw":"gw-12-3a","seq":7"#, "", .invalidJSON(offset: 30, description: "unexpected end of data")),
        Bad("trailing garbage", #"{"v":1} x"#, "", .invalidJSON(offset: 8, description: "unexpected character")),
        Bad("trailing comma", #"{"v":1,}"#, "", .invalidJSON(offset: 7, description: "unexpected character")),
        Bad("NUL byte after the object", bytes: Array(#"{"v":1}"#.utf8) + [0, 0x41], "",
            .invalidJSON(offset: 7, description: "unexpected data after the JSON value")),
        Bad("an array, not an object", "[1,2]", "", .wrongType(expected: .object, found: .array)),
        Bad("JSON null", "null", "", .wrongType(expected: .object, found: .null)),
        Bad("a bare number", "42", "", .wrongType(expected: .object, found: .integer)),
        Bad("a bare string", #""v""#, "", .wrongType(expected: .object, found: .string)),
        Bad("invalid UTF-8 inside a string", bytes: Array(#"{"v":1,"gw":"gw-12-3a","addr":"ab\#u{FFFD}"}"#.utf8).map { $0 == 0xEF ? 0xFF : $0 }, "",
            .invalidUTF8(offset: 33)),
        Bad("deep nesting in an unknown field", #"{"v":1,"extra":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}", "",
            .tooDeep(limit: 8)),
        Bad("1 MiB payload", bytes: Array(repeating: UInt8(ascii: " "), count: 1 << 20), "", .payloadTooLarge(size: 1 << 20, limit: 512 * 1024)),

        // Version.
        Bad("v missing", #"{"gw":"gw-12-3a"}"#, "v", .missing),
        Bad("v is 2", #"{"v":2,"gw":"gw-12-3a"}"#, "v", .unsupportedVersion(2)),
        Bad("v is a string", #"{"v":"1"}"#, "v", .wrongType(expected: .integer, found: .string)),

        // Batch fields.
        Bad("gw missing", #"{"v":1,"seq":7,"sent":1732350000000,"sightings":[]}"#, "gw", .missing),
        Bad("gw invalid", batch(good, head: #""v":1,"gw":"gateway-1","seq":7,"sent":1732350000000"#), "gw",
            .invalidIdentity(.badFormat(kind: "gateway id", text: "gateway-1", rule: "must be gw- followed by a-z, 0-9 or -"))),
        Bad("gw a number", batch(good, head: #""v":1,"gw":12,"seq":7,"sent":1732350000000"#), "gw", .wrongType(expected: .string, found: .integer)),
        Bad("seq negative", batch(good, head: #""v":1,"gw":"gw-12-3a","seq":-1,"sent":1732350000000"#), "seq", .outOfRange(value: "-1", bounds: counts)),
        Bad("seq as float", batch(good, head: #""v":1,"gw":"gw-12-3a","seq":7.5,"sent":1732350000000"#), "seq", .wrongType(expected: .integer, found: .number)),
        Bad("seq 1e30", batch(good, head: #""v":1,"gw":"gw-12-3a","seq":1e30,"sent":1732350000000"#), "seq", .outOfRange(value: "1e30", bounds: counts)),
        Bad("seq beyond 2^64 saturates and is caught", batch(good, head: #""v":1,"gw":"gw-12-3a","seq":99999999999999999999999,"sent":1732350000000"#), "seq",
            .outOfRange(value: "18446744073709551615", bounds: counts)),
        Bad("sent in seconds", batch(good, head: #""v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000"#), "sent", .outOfRange(value: "1732350000", bounds: times)),
        Bad("sightings missing", #"{"v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000}"#, "sightings", .missing),
        Bad("sightings as object", #"{"v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000,"sightings":{}}"#, "sightings", .wrongType(expected: .array, found: .object)),
        Bad("a sighting that is a number", batch("5"), "sightings[1]", .wrongType(expected: .object, found: .integer)),
        Bad("10 000 sightings, default limits", bytes: batch(count: 10_000), "", .payloadTooLarge(size: batch(count: 10_000).count, limit: 512 * 1024)),
        Bad("10 000 sightings, payload limit raised", bytes: batch(count: 10_000), limits: WireLimits(maxPayloadBytes: 4 << 20), "sightings",
            .tooManyItems(count: 10_000, limit: 4000)),

        // Sighting fields.
        Bad("rssi as string", batch(#"{"dev":"\#(device)","t":1732349999412,"rssi":"-67"}"#), "sightings[1].rssi", .wrongType(expected: .integer, found: .string)),
        Bad("rssi 45", batch(#"{"dev":"\#(device)","t":1732349999412,"rssi":45}"#), "sightings[1].rssi", .outOfRange(value: "45", bounds: "-127…20 dBm")),
        Bad("rssi 1e300", batch(#"{"dev":"\#(device)","t":1732349999412,"rssi":1e300}"#), "sightings[1].rssi", .outOfRange(value: "1e300", bounds: "-127…20 dBm")),
        Bad("rssi null", batch(#"{"dev":"\#(device)","t":1732349999412,"rssi":null}"#), "sightings[1].rssi", .wrongType(expected: .integer, found: .null)),
        Bad("rssi missing", batch(#"{"dev":"\#(device)","t":1732349999412}"#), "sightings[1].rssi", .missing),
        Bad("tx -128", batch(#"{"dev":"\#(device)","t":1732349999412,"rssi":-67,"tx":-128}"#), "sightings[1].tx", .outOfRange(value: "-128", bounds: "-127…20 dBm")),
        Bad("t beyond 2099", batch(#"{"dev":"\#(device)","t":4102444800000,"rssi":-67}"#), "sightings[1].t", .outOfRange(value: "4102444800000", bounds: times)),
        Bad("t negative", batch(#"{"dev":"\#(device)","t":-1,"rssi":-67}"#), "sightings[1].t", .outOfRange(value: "-1", bounds: times)),
        Bad("t missing", batch(#"{"dev":"\#(device)","rssi":-67}"#), "sightings[1].t", .missing),
        Bad("dev missing", batch(#"{"t":1732349999412,"rssi":-67}"#), "sightings[1].dev", .missing),
        Bad("dev with a slash", batch(#"{"dev":"a/b","t":1732349999412,"rssi":-67}"#), "sightings[1].dev",
            .invalidIdentity(idError("a/b"))),
        Bad("dev with markup", batch(#"{"dev":"ib-<img>x","t":1732349999412,"rssi":-67}"#), "sightings[1].dev", .invalidIdentity(idError("ib-<img>x"))),
        Bad("dev with a lower-case UUID", batch(#"{"dev":"\#(device.lowercased())","t":1732349999412,"rssi":-67}"#), "sightings[1].dev",
            .invalidIdentity(idError(device.lowercased()))),
        Bad("dev empty", batch(#"{"dev":"","t":1732349999412,"rssi":-67}"#), "sightings[1].dev", .invalidIdentity(.empty(kind: "device id"))),
        Bad("dev of 200 characters", batch(#"{"dev":"\#(String(repeating: "d", count: 200))","t":1732349999412,"rssi":-67}"#), "sightings[1].dev",
            .invalidIdentity(.tooLong(kind: "device id", length: 200, limit: 96))),
        Bad("dev with an escaped NUL", batch(#"{"dev":"ab\u0000c","t":1732349999412,"rssi":-67}"#), "sightings[1].dev",
            .invalidIdentity(idError("ab\u{0}c"))),
        Bad("addr of 40 bytes", batch(#"{"dev":"\#(device)","t":1732349999412,"rssi":-67,"addr":"\#(String(repeating: "A", count: 40))"}"#),
            "sightings[1].addr", .tooLong(length: 40, limit: 32)),

        // Other payloads: ids and names as every reader checks them.
        Bad(.event, "event dev with markup", replacing(GoldenPayloads.sectionEnter, device, "ib-<img>x"), "dev", .invalidIdentity(idError("ib-<img>x"))),
        Bad(.state, "state dev with markup", replacing(GoldenPayloads.deviceState, device, "ib-<img>x"), "dev", .invalidIdentity(idError("ib-<img>x"))),
        Bad(.state, "state dev of no kind", replacing(GoldenPayloads.deviceState, device, "D"), "dev", .invalidIdentity(idError("D"))),
        Bad(.event, "store name with a right-to-left override", replacing(GoldenPayloads.sectionEnter, "Lyon Part-Dieu", #"Store \u202E21"#), "store_name",
            .invalidValue(value: #""Store \u{202E}21""#, expected: nameRule + " (it contains U+202E, a bidirectional control, which reorders the text drawn beside it)")),
        Bad(.event, "section name with an isolate", replacing(GoldenPayloads.sectionEnter, "Household", #"\u2067Household"#), "section_name",
            .invalidValue(value: #""\u{2067}Household""#, expected: nameRule + " (it contains U+2067, a bidirectional control, which reorders the text drawn beside it)")),
        Bad(.state, "section name with a line break", replacing(GoldenPayloads.deviceState, "Household", #"House\nhold"#), "section_name",
            .invalidValue(value: #""House\nhold""#, expected: nameRule + " (it contains U+000A, a control character)")),
        Bad(.event, "store name of 129 bytes", replacing(GoldenPayloads.sectionEnter, "Lyon Part-Dieu", String(repeating: "n", count: 129)), "store_name",
            .tooLong(length: 129, limit: WireBounds.maxNameBytes)),
        Bad(.occupancy, "occupancy name with a mark", replacing(GoldenPayloads.storeOccupancy, "Lyon Part-Dieu", #"Lyon\u200F"#), "name",
            .invalidValue(value: #""Lyon\u{200F}""#, expected: nameRule + " (it contains U+200F, a bidirectional control, which reorders the text drawn beside it)")),
        Bad(.layout, "layout section name with an override",
            #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"\u202Dx"}],"gateways":[]}"#, "sections[0].name",
            .invalidValue(value: #""\u{202D}x""#, expected: nameRule + " (it contains U+202D, a bidirectional control, which reorders the text drawn beside it)")),
        Bad(.layout, "layout polygon of 1 025 points",
            #"{"v":1,"major":12,"name":"S","t":1732350000000,"sections":[{"minor":1,"name":"A","polygon":[\#(Array(repeating: "[0,0]", count: 1025).joined(separator: ","))]}],"gateways":[]}"#,
            "sections[0].polygon", .tooManyItems(count: 1025, limit: WireBounds.maxPolygonPoints)),

        // Other payloads.
        Bad(.state, "state not a known word", replacing(GoldenPayloads.deviceState, #""inside""#, #""sideways""#), "state",
            .invalidValue(value: "\"sideways\"", expected: "inside, outside or unknown")),
        Bad(.state, "uuid malformed", replacing(GoldenPayloads.deviceState, #""uuid": "E2C56DB5-DFFB"#, #""uuid": "E2C56DB5-DFF"#), "uuid",
            .invalidValue(value: "\"E2C56DB5-DFF-48D2-B060-D0F5A71096E0\"", expected: "a UUID such as E2C56DB5-DFFB-48D2-B060-D0F5A71096E0")),
        Bad(.state, "accuracy NaN", replacing(GoldenPayloads.deviceState, "1.8", "NaN"), "accuracy", .outOfRange(value: "NaN", bounds: "0…1000 m")),
        Bad(.state, "accuracy -Infinity", replacing(GoldenPayloads.deviceState, "1.8", "-Infinity"), "accuracy", .outOfRange(value: "-Infinity", bounds: "0…1000 m")),
        Bad(.state, "accuracy 1e400", replacing(GoldenPayloads.deviceState, "1.8", "1e400"), "accuracy", .outOfRange(value: "1e400", bounds: "0…1000 m")),
        Bad(.state, "confidence above 1", replacing(GoldenPayloads.deviceState, "0.97", "1.5"), "confidence", .outOfRange(value: "1.5", bounds: "0…1")),
        Bad(.state, "minor without major", replacing(GoldenPayloads.deviceState, #""major": 12,"#, ""), "minor",
            .invalidValue(value: "3", expected: "no minor without a major")),
        Bad(.state, "major above 65535", replacing(GoldenPayloads.deviceState, #""major": 12"#, #""major": 65536"#), "major",
            .outOfRange(value: "65536", bounds: "0…65535")),
        Bad(.event, "section event without minor", replacing(GoldenPayloads.sectionEnter, #""minor": 3,"#, ""), "minor", .missing),
        Bad(.event, "store event with a minor", replacing(GoldenPayloads.storeExit, #""major": 12,"#, #""major": 12, "minor": 1,"#), "minor",
            .invalidValue(value: "1", expected: "no minor for a store-scope event")),
        Bad(.event, "unknown scope", replacing(GoldenPayloads.sectionEnter, #""section","#, #""aisle","#), "scope",
            .invalidValue(value: "\"aisle\"", expected: "store or section")),
        Bad(.event, "dwell negative", replacing(GoldenPayloads.storeExit, "1874300", "-5"), "dwell_ms", .outOfRange(value: "-5", bounds: "0…9007199254740991 ms")),
        Bad(.gateway, "gateway counter negative", replacing(GoldenPayloads.gatewayOnline, #""dropped": 0"#, #""dropped": -3"#), "counters.dropped",
            .outOfRange(value: "-3", bounds: counts)),
        Bad(.gateway, "gateway with major but no minor", replacing(GoldenPayloads.gatewayOnline, #""minor": 3,"#, ""), "minor", .missing),
        Bad(.aggregator, "loss keyed by a bad gateway id", replacing(GoldenPayloads.aggregatorOnline, #""gw-12-3a": 2"#, #""gw 12": 2"#), "counters.loss.gw 12",
            .invalidIdentity(.badFormat(kind: "gateway id", text: "gw 12", rule: "must be gw- followed by a-z, 0-9 or -"))),
        Bad(.aggregator, "reject count as string", replacing(GoldenPayloads.aggregatorOnline, #""out_of_range": 4"#, #""out_of_range": "4""#), "counters.rejects.out_of_range",
            .wrongType(expected: .integer, found: .string)),
        Bad(.aggregator, "stores list malformed", replacing(GoldenPayloads.aggregatorOnline, "1-250,300", "250-1"), "stores",
            .invalidValue(value: "\"250-1\"", expected: "stores and ranges such as 1-250,300")),
        Bad(.aggregator, "too many counter entries", replacing(GoldenPayloads.aggregatorOnline, #""loss": { "gw-12-3a": 2 }"#, #""loss": { "gw-1": 1, "gw-2": 2, "gw-3": 3 }"#),
            limits: WireLimits(maxMapEntries: 2), "counters.loss", .tooManyItems(count: 3, limit: 2)),
    ]

    static func replacing(_ json: String, _ old: String, _ new: String) -> String {
        precondition(json.contains(old), "fixture does not contain \(old)")
        return json.replacing(old, with: new, maxReplacements: 1)
    }

    @Test("each is rejected with the expected field and reason", arguments: cases)
    func rejected(_ bad: Bad) {
        #expect(throws: bad.expected) { try bad.kind.decode(bad.bytes, WireDecoder(limits: bad.limits)) }
    }

    @Test("descriptions read as one line with the path first")
    func descriptions() {
        #expect(WireError(field: "sightings[3].rssi", reason: .outOfRange(value: "45", bounds: "-127…20 dBm")).description
            == "sightings[3].rssi: 45 is out of range -127…20 dBm")
        #expect(WireError(field: "", reason: .payloadTooLarge(size: 1_048_576, limit: 524_288)).description
            == "payload: 1048576 bytes is larger than the limit of 524288")
        #expect(WireError(field: "sightings[0].dev", reason: .invalidIdentity(.empty(kind: "device id"))).description
            == "sightings[0].dev: device id is empty")
        #expect(WireError(field: "v", reason: .unsupportedVersion(2)).description
            == "v: version 2 is not supported (this decoder reads version 1)")
        #expect(WireError(field: "gw", reason: .missing).description == "gw is missing")
        #expect(WireError(field: "seq", reason: .wrongType(expected: .integer, found: .number)).description
            == "seq: expected an integer, found a number")
    }

    @Test("a decoder keeps working after any failure")
    func decoderRecovers() throws {
        let decoder = WireDecoder()
        for bad in Self.cases where bad.limits == .default {
            #expect(throws: WireError.self) { try bad.kind.decode(bad.bytes, decoder) }
            #expect(try SightingBatch.decode(Fixtures.batch.encoded(), using: decoder) == Fixtures.batch)
        }
    }
}

@Suite("UTF-8 validation")
struct UTF8ValidationTests {
    @Test("agrees with the standard library on every 1–4 byte sequence class and at every alignment")
    func agreesWithStandardLibrary() {
        var random = SystemRandomNumberGenerator()
        let samples: [[UInt8]] = [
            Array("plain ascii, long enough to use the eight-byte path".utf8),
            Array("é — 😀 ü 中文".utf8),
            [0xC0, 0x80], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80],
            [0xC3], [0xE2, 0x82], [0x80], [0xFF], [0xF0, 0x9F, 0x98],
        ]
        for sample in samples {
            for pad in 0..<9 {
                let bytes = Array(repeating: UInt8(ascii: "a"), count: pad) + sample + Array("tail".utf8)
                let expected = String(validating: bytes, as: UTF8.self) == nil
                let got = bytes.withUnsafeBytes { UTF8Validation.firstInvalidOffset($0) }
                #expect((got != nil) == expected, "\(bytes)")
            }
        }
        for _ in 0..<5_000 {
            let bytes = (0..<Int.random(in: 0...24, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let expected = String(validating: bytes, as: UTF8.self) == nil
            let got = bytes.withUnsafeBytes { UTF8Validation.firstInvalidOffset($0) }
            #expect((got != nil) == expected, "\(bytes)")
        }
    }
}
