import BeaconCore
import Testing

/// The JSON parser every config reader starts from: values with their line and column, strict
/// JSON, and a fault named where it is.
@Suite("JSON document")
struct JSONDocumentTests {
    func parse(_ text: String) throws -> JSONNode { try JSONDocument(parsing: Array(text.utf8)).root }

    @Test("values read as written: escapes, surrogate pairs, numbers of every form")
    func values() throws {
        let root = try parse(#"{"s":"a\"b\\c\/\n\u00e9\ud83d\ude00","lone":"\ud800x","n":[0,-0,12.5,-3e2,1E+2,1e400],"b":[true,false,null],"o":{}}"#)
        guard case .string(let s)? = root["s"]?.value, case .string(let lone)? = root["lone"]?.value else {
            Issue.record("strings not read: \(root)")
            return
        }
        #expect(s == "a\"b\\c/\né😀")
        #expect(lone == "\u{FFFD}x")
        guard case .array(let numbers)? = root["n"]?.value else { return }
        let values = numbers.compactMap { node -> Double? in if case .number(let x) = node.value { return x } else { return nil } }
        #expect(values == [0, 0, 12.5, -300, 100, .infinity])
        guard case .array(let flags)? = root["b"]?.value, case .object(let empty)? = root["o"]?.value else { return }
        #expect(flags.count == 3 && empty.isEmpty)
    }

    @Test("every value and key knows its line and column; columns count characters, CR LF and a BOM are taken")
    func locations() throws {
        let text = "\u{FEFF}{\r\n  \"name\": \"Café\", \"next\": 1,\r\n  \"list\": [\n    true, {\"k\": null}\n  ]\n}"
        let document = try JSONDocument(parsing: Array(text.utf8))
        #expect(document.root.location == TextLocation(line: 1, column: 1))
        guard case .object(let members) = document.root.value else { return }
        #expect(members.map(\.key) == ["name", "next", "list"])
        #expect(members.map(\.keyLocation) == [TextLocation(line: 2, column: 3), TextLocation(line: 2, column: 19), TextLocation(line: 3, column: 3)])
        // "Café" is 5 characters and 6 bytes: the value after it is placed by characters.
        #expect(document.root["next"]?.location == TextLocation(line: 2, column: 27))
        #expect(document.root.node(at: "$.list[1].k")?.location == TextLocation(line: 4, column: 17))
        #expect(document.root.node(at: "$.list[0]")?.location == TextLocation(line: 4, column: 5))
        #expect(document.root.node(at: "$.list[2]") == nil && document.root.node(at: "$.nope") == nil)
    }

    @Test("a repeated key is reported at its own place, with its path, and the first value kept")
    func repeatedKeys() throws {
        let text = "{\"a\": 1,\n \"s\": [{\"m\": 1, \"m\": 2}],\n \"a\": 3}"
        let document = try JSONDocument(parsing: Array(text.utf8))
        #expect(document.repeatedKeys.map(\.path) == ["$.s[0].m", "$.a"])
        #expect(document.repeatedKeys.map(\.location) == [TextLocation(line: 2, column: 17), TextLocation(line: 3, column: 2)])
        #expect(document.repeatedKeys.allSatisfy { $0.message.contains("given twice") })
        guard case .number(let a)? = document.root["a"]?.value else { return }
        #expect(a == 1)
        // An object large enough to keep its keys in a set finds repeats too.
        let wide = "{" + (0..<40).map { "\"k\($0)\":\($0)" }.joined(separator: ",") + ",\"k7\":0,\"k39\":1}"
        #expect(try JSONDocument(parsing: Array(wide.utf8)).repeatedKeys.map(\.path) == ["$.k7", "$.k39"])
    }

    /// Text that is not JSON, where the fault is, and words of its message.
    static let faults: [(String, Int, Int, String)] = [
        ("", 1, 1, "the text is empty"),
        ("{\"a\": 1,}", 1, 9, "a comma before '}'"),
        ("[1, 2,\n]", 2, 1, "a comma before ']'"),
        ("{\"a\" 1}", 1, 6, "expected ':' after the key \"a\", found '1'"),
        ("{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}' after the member \"a\""),
        ("[1, 2", 1, 6, "expected ',' or ']'"),
        ("{\"a\": \"open\n}", 1, 12, "a line end inside a string"),
        ("{\"a\": \"no end", 1, 7, "a string that never ends"),
        ("{\"a\": \"\\x\"}", 1, 8, "'\\x' is not an escape"),
        ("{\"a\": \"\\u12\"}", 1, 8, "four hex digits"),
        ("{\"a\": tru}", 1, 7, "found 'tru'"),
        ("{\"a\": 01}", 1, 8, "leading zero"),
        ("{\"a\": -}", 1, 8, "expected a digit after '-'"),
        ("{\"a\": 1.}", 1, 9, "after the decimal point"),
        ("{\"a\": 1e}", 1, 9, "exponent"),
        ("{} x", 1, 4, "text after the end of the document"),
        ("// a comment\n{}", 1, 1, "expected a value"),
        ("{'a': 1}", 1, 2, "expected a key in double quotes, found ''a''"),
        ("{\"é\": [\n  1,\n  2 3]}", 3, 5, "expected ',' or ']'"),
    ]

    @Test("text that is not JSON is refused where it stops being JSON", arguments: faults)
    func fault(_ text: String, _ line: Int, _ column: Int, _ words: String) {
        do {
            _ = try JSONDocument(parsing: Array(text.utf8))
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.location == TextLocation(line: line, column: column) && error.message.contains(words), "\(error)")
            #expect(error.issue.path == "$" && error.issue.message.hasPrefix("not valid JSON: "))
        }
    }

    @Test("bytes that are not UTF-8, inside or outside a string, are refused")
    func notUTF8() {
        for bytes: [UInt8] in [[0x7B, 0x22, 0x61, 0x22, 0x3A, 0x22, 0xC3, 0x28, 0x22, 0x7D], [0x7B, 0xFF, 0x7D], [0x22, 0xED, 0xA0, 0x80, 0x22]] {
            #expect(throws: JSONSyntaxError.self) { try JSONDocument(parsing: bytes) }
        }
    }

    @Test("nesting deeper than the limit is a fault, not a crash; the limit itself is read")
    func depth() throws {
        let deep = String(repeating: "[", count: 100_000)
        #expect { try JSONDocument(parsing: Array(deep.utf8)) } throws: { ($0 as? JSONSyntaxError)?.message.contains("nested deeper") == true }
        let limit = JSONDocument.maxDepth
        _ = try parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit))
    }

    @Test("a value in a message: short as written, long strings cut, containers by kind")
    func summaries() throws {
        let root = try parse(#"[70000, 12.5, "3", "a\"b\n", true, null, [], [1], {}, {"a":1}, "\#(String(repeating: "x", count: 50))"]"#)
        guard case .array(let items) = root.value else { return }
        #expect(items.map(\.summary) == [
            "70000", "12.5", "\"3\"", #""a\"b\n""#, "true", "null", "an empty array", "an array", "an empty object", "an object",
            "\"" + String(repeating: "x", count: 40) + "…\"",
        ])
    }
}
