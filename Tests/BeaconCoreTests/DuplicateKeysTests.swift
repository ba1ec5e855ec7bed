import BeaconCore
import Testing

/// The repeated-key scan the config loaders run: JSON parsers keep one value of a repeated key
/// silently, so the scan is what tells the author.
@Suite("Repeated JSON keys")
struct DuplicateKeysTests {
    static let cases: [(String, [String])] = [
        (#"{"a":1,"b":2}"#, []),
        (#"{"a":1,"a":2}"#, ["$.a"]),
        (#"{"a":1,"a":2,"a":3}"#, ["$.a", "$.a"]),
        // The same key in different objects is fine; repeats are found at any depth and in arrays.
        (#"{"a":{"x":1},"b":{"x":2}}"#, []),
        (#"{"s":[{"m":1},{"m":2,"n":[],"m":3}]}"#, ["$.s[1].m"]),
        (#" { "o" : { "p" : [ 1 , { "q" : null , "q" : true } ] } } "#, ["$.o.p[1].q"]),
        // Keys compare unescaped: the escapes, a surrogate pair, and a raw UTF-8 key.
        (#"{"a":1,"\u0061":2}"#, ["$.a"]),
        (#"{"\ud83d\ude00":1,"😀":2}"#, ["$.😀"]),
        (#"{"a\"b":1,"a\u0022b":2,"a\\b":3}"#, [#"$.a"b"#]),
        // Strings that look like keys, or contain braces, are values.
        (#"{"a":"a","b":"{\"a\":1,\"a\":2}"}"#, []),
        (#"[{"k":1},{"k":2}]"#, []),
        (#"{}"#, []),
        (#"[]"#, []),
        // Invalid text: what was found before the fault (the parser reports the fault itself).
        (#"{"a":1,"a":2,"#, ["$.a"]),
        (#"{"a":1 "a":2}"#, []),
        (#"{"a":"\x"}"#, []),
        (#"{"a":"\u12"}"#, []),
        ("", []),
    ]

    @Test("each repeated key is named at its path", arguments: cases)
    func repeated(_ text: String, _ paths: [String]) {
        #expect(DuplicateKeys.find(in: Array(text.utf8)).map(\.path) == paths)
    }

    @Test("deep nesting stops the scan, not the process")
    func deep() {
        let text = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(DuplicateKeys.find(in: Array(text.utf8)).isEmpty)
    }
}
