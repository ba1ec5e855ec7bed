import Testing
@testable import BeaconCore

@Suite("Identities for the wire")
struct WireIdentityTests {
    @Test("valid aggregator ids", arguments: ["agg-eu-1", "stores-1-250", "a", String(repeating: "z", count: 64)])
    func validAggregator(_ text: String) throws {
        #expect(try AggregatorID(text).rawValue == text)
    }

    @Test("invalid aggregator ids", arguments: ["", "Agg", "agg/1", "agg+", "agg#", "agg 1", "agg_1", String(repeating: "z", count: 65)])
    func invalidAggregator(_ text: String) {
        #expect(throws: IdentityError.self) { try AggregatorID(text) }
    }

    @Test("device ids from bytes follow the same rules as from strings",
          arguments: ["ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-2", "mac-AA:BB:CC:DD:EE:FF", "", "a/b", "a+b", "a#b", "a b", "a\u{0}b", "é",
                      String(repeating: "x", count: 96), String(repeating: "x", count: 97),
                      // a forbidden byte at every position of an 8-byte word, and in the tail
                      "abcdefg/hijk", "abcdefgh+", "abcdefghijklmno#", "ABCDEFG\u{7F}", "1234567 89", "\u{1}2345678",
                      "abcdefgh!~\"'()*", "abcdéfgh", "abcdefghijklmnopq r"])
    func deviceFromBytes(_ text: String) {
        let fromString = Result { () throws(IdentityError) in try DeviceID(text) }
        let fromBytes = Array(text.utf8).withUnsafeBufferPointer { buffer in
            Result { () throws(IdentityError) in try DeviceID(utf8: buffer) }
        }
        #expect(fromBytes == fromString)
    }
}
