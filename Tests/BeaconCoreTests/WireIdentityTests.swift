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
                      "rec-" + String(repeating: "x", count: 92), "rec-" + String(repeating: "x", count: 93), "ib-<img>x",
                      "eu-edd1ebeac04e5defa017-0b1c2d3e4f50", "eu-edd1ebeac04e5defa017-0b1c2d3e4f5g", "mac-AA:BB:CC:DD:EE:F",
                      "ab-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-99999-1",
                      // a forbidden byte at the start, in the middle and at the end
                      "rec-abcdefg/hijk", "rec-abcdefgh+", "rec-abcdefghijklmno#", "rec-ABCDEFG\u{7F}", "rec-1234567 89", "\u{1}rec-2345678",
                      "rec-abcdefgh!~\"'()*", "rec-abcdéfgh", "rec-abcdefghijklmnopq r"])
    func deviceFromBytes(_ text: String) {
        let fromString = Result { () throws(IdentityError) in try DeviceID(text) }
        let fromBytes = Array(text.utf8).withUnsafeBufferPointer { buffer in
            Result { () throws(IdentityError) in try DeviceID(utf8: buffer) }
        }
        #expect(fromBytes == fromString)
    }
}
