import BeaconCore
@testable import BeaconWire
import PropertyBased
import Testing

/// A key given twice in one object is refused (`duplicate_key`, with the key's path): json-c
/// would keep the last value without a word. Found by comparing the members the text declares
/// (counted in the pass over the bytes) with those of the parsed tree.
@Suite("Duplicate keys in payloads")
struct DuplicateKeyTests {
    static let device = MalformedPayloadTests.device
    static let good = MalformedPayloadTests.good

    static func batch(_ sightings: String, head: String = #""v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000"#) -> String {
        #"{\#(head),"sightings":[\#(sightings)]}"#
    }

    static let repeated: [(name: String, kind: MalformedPayloadTests.Kind, json: String, field: String)] = [
        ("a batch's gw twice", .batch, batch(good, head: #""v":1,"gw":"gw-12-3a","seq":7,"gw":"gw-12-3b","sent":1732350000000"#), "gw"),
        ("a sighting's dev twice", .batch, batch(good + #",{"dev":"\#(device)","t":1732349999412,"rssi":-67,"dev":"mac-AA:BB:CC:DD:EE:FF"}"#), "sightings[1].dev"),
        ("the same key, once escaped", .batch, batch(#"{"dev":"\#(device)","t":1732349999412,"rssi":-67,"rs\u0073i":-20}"#), "sightings[0].rssi"),
        ("twice in a newer edge's nested field", .batch, batch(good, head: #""v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000,"extra":{"a":1,"a":2}"#), "extra.a"),
        ("the sightings list twice", .batch, #"{"v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000,"sightings":[],"sightings":[\#(good)]}"#, "sightings"),
        ("v twice", .batch, #"{"v":2,"v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000,"sightings":[]}"#, "v"),
        ("a status counter map with a reason twice", .aggregator,
         #"{"v":1,"id":"agg-1","state":"online","version":"1","t":1732350000000,"counters":{"rejects":{"x":1,"x":2}}}"#, "counters.rejects.x"),
        ("a gateway status's state twice", .gateway, #"{"v":1,"gw":"gw-12-3a","state":"offline","state":"online"}"#, "state"),
        ("keys json-c cuts at a NUL", .batch, batch(#"{"dev":"\#(device)","t":1732349999412,"rssi":-67,"a\u0000b":1,"a\u0000c":2}"#), ""),
    ]

    @Test("a key given twice is refused with its path", arguments: repeated.indices)
    func refused(_ index: Int) {
        let (name, kind, json, field) = Self.repeated[index]
        do {
            try kind.decode(Array(json.utf8), WireDecoder())
            Issue.record("\(name): accepted")
        } catch {
            #expect(error.reason == .duplicateKey && error.field == field, "\(name): \(error)")
            #expect(error.reason.code == "duplicate_key")
        }
    }

    @Test("strings full of colons, quotes and escapes, keys with colons, and a newer edge's nested fields are no repeats")
    func noFalseRepeats() throws {
        let tricky = [
            #"{"dev":"mac-C4:7C:8D:6A:12:3F","t":1732349999412,"rssi":-67,"addr":"C4:7C:8D:6A:12:3F"}"#,
            #"{"dev":"\#(Self.device)","t":1732349999412,"rssi":-67,"note":"a \"quoted\": part, \\\", and \\\\\":\""}"#,
            #"{"dev":"\#(Self.device)","t":1732349999412,"rssi":-67,"k:ey":"v:a:l","k\"ey":1,"k\\ey":2,"\u006b":3,"é:ü":"ß:\u00e9"}"#,
            #"{"dev":"\#(Self.device)","t":1732349999412,"rssi":-67,"meta":{"a":{"b":[{"c":1},{"c":2}]},"d":[]},"list":[1,"x:y",{"e":null}]}"#,
        ]
        for sighting in tricky {
            let json = Self.batch(Self.good + "," + sighting, head: #""v":1,"gw":"gw-12-3a","seq":7,"sent":1732350000000,"extra":{"x":{"y":1}}"#)
            #expect(throws: Never.self, "\(sighting)") { _ = try SightingBatch.decode(Array(json.utf8)) }
        }
    }

    /// A JSON text and the number of object members written into it.
    struct Counted: Sendable, CustomStringConvertible {
        let text: String
        let members: Int
        var description: String { "\(members) members: \(text)" }
    }

    @Test("the pass over the bytes counts exactly the members written, escapes across its 64-byte steps included")
    func memberCount() async {
        let texts = Generator { rng in
            var members = 1
            let body = Self.object(&rng, depth: 0, members: &members, escapes: Bool.random(using: &rng))
            return Counted(text: #"{"v":1,"# + body.dropFirst(), members: members)
        }
        await propertyCheck(count: 500, input: texts) { counted in
            let bytes = Array(counted.text.utf8)
            let declared = try bytes.withUnsafeBytes { raw in try WireDecoder().readCounting(raw) { _, declared in declared.count } }
            #expect(declared == counted.members, "\(counted)")
        }
    }

    /// A random object with `members` counting every member written (at least one), keys and
    /// strings drawn from the characters the scan must not be fooled by.
    static func object(_ random: inout some RandomNumberGenerator, depth: Int, members: inout Int, escapes: Bool) -> String {
        let count = Int.random(in: 1...5, using: &random)
        var parts: [String] = []
        for k in 0..<count {
            members += 1
            parts.append("\"\(string(&random, escapes: escapes))\(k)\":\(value(&random, depth: depth, members: &members, escapes: escapes))")
        }
        return "{" + parts.joined(separator: Bool.random(using: &random) ? " , " : ",") + "}"
    }

    static func value(_ random: inout some RandomNumberGenerator, depth: Int, members: inout Int, escapes: Bool) -> String {
        switch Int.random(in: 0..<(depth < 4 ? 6 : 3), using: &random) {
        case 0: return "\"\(string(&random, escapes: escapes))\""
        case 1: return "\(Int.random(in: -100_000...100_000, using: &random))"
        case 2: return ["true", "false", "null", "-1.5e3"].randomElement(using: &random)!
        case 3: return "[" + (0..<Int.random(in: 0...2, using: &random)).map { _ in value(&random, depth: depth + 1, members: &members, escapes: escapes) }.joined(separator: ",") + "]"
        default: return object(&random, depth: depth + 1, members: &members, escapes: escapes)
        }
    }

    /// A string's contents; with `escapes`, escaped quotes and backslashes where a block may start
    /// or end, without, texts whose every block takes the pass's 64-byte step.
    static func string(_ random: inout some RandomNumberGenerator, escapes allowed: Bool) -> String {
        let plain = [":", "a", "bcdefghijklmnop", "é", "{", "}", "[", ",", " ", "mac-C4:7C:8D:6A:12:3F"]
        let escapes = [#"\""#, #"\\"#, #"\\\""#, #"\u003a"#, #"\n"#]
        let pieces = allowed ? plain + escapes : plain
        return (0..<Int.random(in: 0...11, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
    }
}
