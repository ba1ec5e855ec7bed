import BeaconCore
import Foundation
import BeaconWire
import Testing

/// Inputs with which the fuzz targets (Fuzz/, run by deploy/scripts/fuzz.sh; docs/TESTING.md) broke
/// a property of the codec, kept as they were found so that each bug stays fixed.
@Suite("Fuzz findings: the codec")
struct FuzzFindingTests {
    /// fuzz-wire, as found: a region event whose device id breaks off inside a surrogate pair
    /// (`\ud83d\ude0` then NUL bytes). json-c fails on it and keeps the high surrogate pending.
    static let danglingSurrogate: [UInt8] = Array(#"""
        {
          "v": 1,
          "kind": "enter",
          "scope": "section",
          "dev": "ib-E2C56DB5-\ud83d\ude0
        """#.utf8) + [UInt8](repeating: 0, count: 32) + Array(#"""
        : 3,
          "store_name": "Lyon Part-Dieu",
          "section_name": "House17
        }
        """#.utf8)

    @Test("a payload that fails inside a surrogate pair leaves nothing behind in a reused decoder")
    func danglingSurrogateAsFound() throws {
        let decoder = WireDecoder()
        #expect(throws: WireError.self) { try decoder.decode(RegionEvent.self, from: Self.danglingSurrogate) }
        // The property that broke: the dead letter for that payload, decoded with the same decoder,
        // came back with a U+FFFD inserted before the prefix's first `\u0000`.
        let reject = Reject(
            topic: "beaconnet/sightings/12/gw-12-3a", reason: "invalid_json", detail: "invalid JSON", time: 1_732_350_000_000,
            payloadPrefix: Reject.prefix(of: Self.danglingSurrogate))
        #expect(try decoder.decode(Reject.self, from: reject.encoded()) == reject)
    }

    @Test("after such a payload, the next one's escaped ids still decode (a whole batch was refused)")
    func danglingSurrogateThenBatch() throws {
        let decoder = WireDecoder()
        #expect(throws: WireError.self) { try decoder.decode(SightingBatch.self, from: Array(#"{"v":1,"gw":"\ud83d\ude0"}"#.utf8)) }
        let next = Array(#"{"v":1,"gw":"gw-\u0031","seq":7,"sent":1732350000000,"sightings":[]}"#.utf8)
        #expect(try decoder.decode(SightingBatch.self, from: next).gateway.rawValue == "gw-1")
    }

    /// fuzz-wire's dead-letter property, checked on a crafted payload (keys this long are more
    /// than a one-minute run grows): a counter map's key went into the error's field path as it
    /// was, so a dead letter made from the error had a `field` over its 256-byte bound and did not
    /// decode; a key with a newline broke the log line too.
    @Test("a long or unprintable key in a counter map gives a short, one-line field path", arguments: [
        String(repeating: "x", count: 300), "gw-\n\t\u{7F}" + String(repeating: "é", count: 200),
    ])
    func longCounterKey(key: String) throws {
        let payload = #"{"v":1,"id":"agg-1","state":"online","version":"1","t":1732350000000,"counters":{"loss":{"KEY":"a"}}}"#
            .replacingOccurrences(of: "KEY", with: key.unicodeScalars.map { $0.value < 0x20 ? String(format: "\\u%04x", $0.value) : String($0) }.joined())
        let error = try #require(throws: WireError.self) { try AggregatorStatus.decode(Array(payload.utf8)) }
        #expect(error.field.hasPrefix("counters.loss."))
        #expect(error.field.utf8.count <= 64 + 3 + "counters.loss.".utf8.count)
        #expect(!error.description.contains("\n"))
        let reject = Reject(topic: "beaconnet/aggregators/agg-1/status", error: error, time: 1_732_350_000_000, payload: Array(payload.utf8))
        #expect(try Reject.decode(reject.encoded()) == reject)
    }
}

