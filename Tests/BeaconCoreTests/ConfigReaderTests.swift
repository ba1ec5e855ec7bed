import BeaconCore
import Testing

/// The typed reading layer of the config readers, on a small format of its own: a shop with a
/// name, a size, a kind and rooms.
@Suite("Config reader")
struct ConfigReaderTests {
    enum Kind: String, CaseIterable {
        case grocery, florist
    }

    struct Shop: Equatable {
        var name: String
        var size: Int
        var kind = Kind.grocery
        var open = true
        var rooms: [Double] = []
    }

    /// Reads `text` as a shop, returning it or the error.
    static func read(_ text: String, limit: Int = ConfigReader.defaultLimit) -> Result<Shop, ConfigError> {
        do {
            let (root, reader) = try ConfigReader.parse(Array(text.utf8), limit: limit)
            let shop = reader.value(root).object { o -> Shop? in
                let name = o.required("name", as: String.self)
                let size = o.required("size", expecting: "an integer")?.integer(in: 1...100)
                var shop = Shop(name: name ?? "", size: size ?? 0)
                o.read("kind", into: &shop.kind)
                o.read("open", into: &shop.open)
                shop.rooms = o.member("rooms")?.array { $0.read(Double.self) } ?? []
                o.comment()
                return name == nil || size == nil ? nil : shop
            }
            guard let shop, !reader.hasIssues else { return .failure(reader.error(file: "shop.json")) }
            return .success(shop)
        } catch {
            return .failure(error)
        }
    }

    static func issues(_ text: String) -> [ConfigIssue] {
        guard case .failure(let error) = read(text) else { return [] }
        return error.issues
    }

    @Test("a good file reads, defaults where keys are absent or null")
    func reads() throws {
        #expect(try Self.read(#"{"name":"Au Bon Pain","size":12,"kind":"florist","rooms":[1,2.5],"comment":"x"}"#).get()
            == Shop(name: "Au Bon Pain", size: 12, kind: .florist, rooms: [1, 2.5]))
        #expect(try Self.read(#"{"name":"x","size":1.0e1,"open":null}"#).get() == Shop(name: "x", size: 10))
    }

    /// A broken file, and the path, location and message of the issue it must produce.
    static let broken: [(String, String, TextLocation?, String)] = [
        (#"{"name":"x","size":"3"}"#, "$.size", TextLocation(line: 1, column: 20), #"has the wrong type, expected an integer, found "3""#),
        (#"{"name":"x","size":12.5}"#, "$.size", TextLocation(line: 1, column: 20), "12.5 is not a whole number (within ±2^53)"),
        (#"{"name":"x","size":1e300}"#, "$.size", TextLocation(line: 1, column: 20), "1e+300 is not a whole number"),
        (#"{"name":"x","size":500}"#, "$.size", TextLocation(line: 1, column: 20), "must be 1–100, got 500"),
        (#"{"name":"x"}"#, "$.size", TextLocation(line: 1, column: 1), "is required but missing"),
        (#"{"name":null,"size":1}"#, "$.name", TextLocation(line: 1, column: 9), "is null, expected a string"),
        (#"{"name":"x","size":1,"kind":"bakery"}"#, "$.kind", TextLocation(line: 1, column: 29), #""bakery" is not one of "grocery", "florist""#),
        (#"{"name":"x","size":1,"rooms":[1,"2",null]}"#, "$.rooms[1]", TextLocation(line: 1, column: 33), "expected a number, found \"2\""),
        (#"{"name":"x","size":1,"rooms":[1,"2",null]}"#, "$.rooms[2]", TextLocation(line: 1, column: 37), "is null, expected a number"),
        (#"{"name":"x","size":1,"rooms":[1e400]}"#, "$.rooms[0]", TextLocation(line: 1, column: 31), "beyond any number"),
        (#"{"name":"x","size":1,"rooms":{}}"#, "$.rooms", TextLocation(line: 1, column: 30), "expected an array, found an empty object"),
        (#"{"name":"x","size":1,"sise":2}"#, "$.sise", TextLocation(line: 1, column: 22), #"unknown key (did you mean "size"?)"#),
        (#"{"name":"x","size":1,"colour":"red"}"#, "$.colour", TextLocation(line: 1, column: 22),
         "unknown key (known here: comment, kind, name, open, rooms, size)"),
        (#"{"name":"x","size":1,"size":2}"#, "$.size", TextLocation(line: 1, column: 22), "given twice"),
        ("[]", "$", TextLocation(line: 1, column: 1), "has the wrong type, expected an object, found an empty array"),
        ("{\"name\":\"x\",\n \"size\":", "$", TextLocation(line: 2, column: 9), "not valid JSON: the text ends where a value should be"),
    ]

    @Test("a value that does not fit is reported with its path, line, column and what was found", arguments: broken)
    func refused(_ text: String, _ path: String, _ location: TextLocation?, _ words: String) {
        let found = Self.issues(text)
        #expect(found.contains { $0.path == path && $0.location == location && $0.message.contains(words) }, "\(found)")
    }

    @Test("every problem at once, in file order, each line as compilers write it")
    func allAtOnce() throws {
        let text = "{\"rooms\": [\"a\"],\n \"kind\": 3,\n \"nme\": \"x\"}"
        guard case .failure(let error) = Self.read(text) else {
            Issue.record("accepted")
            return
        }
        #expect(error.issues.map(\.path) == ["$.name", "$.size", "$.rooms[0]", "$.kind", "$.nme"])
        #expect(error.description.split(separator: "\n").map(String.init) == [
            "shop.json: 5 problems",
            "  shop.json:1:1: $.name: is required but missing",
            "  shop.json:1:1: $.size: is required but missing",
            "  shop.json:1:12: $.rooms[0]: has the wrong type, expected a number, found \"a\"",
            "  shop.json:2:10: $.kind: has the wrong type, expected a string, found 3",
            "  shop.json:3:2: $.nme: unknown key (did you mean \"name\"?)",
        ])
    }

    @Test("past its limit a reader stops: a huge broken file is refused at its first problems")
    func limit() {
        let rooms = Array(repeating: "\"x\"", count: 100_000).joined(separator: ",")
        guard case .failure(let error) = Self.read(#"{"name":"x","size":1,"rooms":[\#(rooms)]}"#, limit: 5) else {
            Issue.record("accepted")
            return
        }
        #expect(error.issues.map(\.path) == (0..<5).map { "$.rooms[\($0)]" } && error.isIncomplete)
        #expect(error.description.hasPrefix("shop.json: 5 problems, the first found (reading stopped there"))
        guard case .failure(let repeated) = Self.read("{" + (0..<30).map { _ in #""name":"x""# }.joined(separator: ",") + "}") else { return }
        #expect(repeated.issues.count == ConfigReader.defaultLimit && repeated.isIncomplete)
    }

    @Test("checks after reading are listed after the reading's problems, placed at their paths")
    func checks() throws {
        let (root, reader) = try ConfigReader.parse(Array("{\"a\": [1,\n  2]}".utf8))
        reader.report(checked: [ConfigIssue(path: "$.a[1]", message: "too big"), ConfigIssue(path: "$.b", message: "missing")], in: root)
        #expect(reader.valuesAreUsable && reader.hasIssues)
        #expect(reader.error().issues == [
            ConfigIssue(path: "$.a[1]", message: "too big", location: TextLocation(line: 2, column: 3)),
            ConfigIssue(path: "$.b", message: "missing"),
        ])
    }

    @Test("the nearest known key, three edits at most")
    func suggestions() {
        #expect(KeySuggestion.nearest(to: "dwel_s", in: ["switch_margin_db", "dwell_s"]) == "dwell_s")
        #expect(KeySuggestion.nearest(to: "mjor", in: ["major", "minor"]) == "major")
        #expect(KeySuggestion.nearest(to: "colour", in: ["name", "size"]) == nil)
        #expect(KeySuggestion.distance("", "abc") == 3 && KeySuggestion.distance("kitten", "sitting") == 3)
    }
}
