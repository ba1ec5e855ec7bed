import Testing
@testable import BeaconCore

@Suite("Identities")
struct IdentityTests {
    @Test("valid gateway ids", arguments: ["gw-1", "gw-store-12-a", "gw-0a9"])
    func validGateway(_ text: String) throws {
        #expect(try GatewayID(text).rawValue == text)
    }

    @Test("invalid gateway ids", arguments: ["", "gw-", "gw-A", "gw-a/b", "gw-a+b", "gw-#", "gateway-1", "gw-a b",
                                              "gw-" + String(repeating: "a", count: 62)])
    func invalidGateway(_ text: String) {
        #expect(throws: IdentityError.self) { try GatewayID(text) }
    }

    @Test("valid device ids", arguments: [
        "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-2", "ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-0-65535",
        "ab-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1000-47", "eu-edd1ebeac04e5defa017-0b1c2d3e4f50", "mac-AA:BB:CC:DD:EE:FF",
        "rec-salrb-sensor-3", "rec-kolakowski-tag", "x-1", "abcdefgh-A.b_c:d-e",
    ])
    func validDevice(_ text: String) throws {
        #expect(try DeviceID(text).rawValue == text)
    }

    @Test("invalid device ids name the problem")
    func invalidDevice() {
        #expect(throws: IdentityError.empty(kind: "device id")) { try DeviceID("") }
        #expect(throws: IdentityError.tooLong(kind: "device id", length: 97, limit: 96)) {
            try DeviceID("rec-" + String(repeating: "x", count: 93))
        }
        for bad in ["a/b", "a+b", "a#b", "a b", "a\u{0}b", "a\nb", "é", "rec-a/b", "rec-a b", "rec-é", "rec-"] {
            #expect(throws: IdentityError.self) { try DeviceID(bad) }
        }
    }

    /// Each kind's prefix commits an id to that kind's shape (what the edge writes), so markup,
    /// a lower-case UUID or a number out of range is refused, with the rule of its kind.
    @Test("device ids keep the shape of their kind", arguments: [
        ("ib-<img>x", "ib-<UUID"),
        ("ib-e2c56db5-dffb-48d2-b060-d0f5a71096e0-1-2", "upper-case hex"),
        ("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1", "<major>-<minor>"),
        ("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-65536-2", "0-65535"),
        ("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-01-2", "leading zero"),
        ("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-2-3", "<major>-<minor>"),
        ("ib-E2C56DB5DFFB-48D2-B060-D0F5A71096E0-1-2", "ib-<UUID"),
        ("ab-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0--2", "ab-<id1"),
        ("eu-EDD1EBEAC04E5DEFA017-0B1C2D3E4F50", "20 lower-case hex"),
        ("eu-edd1ebeac04e5defa017-0b1c2d3e4f5", "12 lower-case hex"),
        ("mac-aa:bb:cc:dd:ee:ff", "AA:BB:CC:DD:EE:FF"),
        ("mac-AA-BB-CC-DD-EE-FF", "AA:BB:CC:DD:EE:FF"),
        ("mac-A", "AA:BB:CC:DD:EE:FF"),
        ("rec-<script>", "<kind>-<id>"),
        ("Rec-1", "<kind>-<id>"),
        ("toolongkind-1", "1 to 8 letters"),
        ("nodash", "<kind>-<id>"),
        ("rec-a\"b", "<kind>-<id>"),
    ])
    func shapes(_ text: String, _ rule: String) {
        #expect {
            try DeviceID(text)
        } throws: { error in
            guard case IdentityError.badFormat(kind: "device id", text: text, let said) = error else { return false }
            return said.contains(rule)
        }
    }

    @Test("names keep the wire's bound and refuse controls and bidirectional controls")
    func names() throws {
        try DisplayName.check("Lyon Part-Dieu « Épicerie » 東京 😀 \"quoted\" \\", kind: "store name")
        try DisplayName.check(String(repeating: "é", count: 64), kind: "store name")
        #expect(throws: IdentityError.tooLong(kind: "store name", length: 130, limit: WireBounds.maxNameBytes)) {
            try DisplayName.check(String(repeating: "é", count: 65), kind: "store name")
        }
        for (bad, code) in [("Store \u{202E}21", "U+202E"), ("\u{2066}12\u{2069}", "U+2066"), ("a\u{200F}b", "U+200F"),
                            ("a\u{61C}b", "U+061C"), ("a\nb", "U+000A"), ("a\u{85}b", "U+0085"), ("a\u{2028}b", "U+2028"),
                            ("a\u{7F}", "U+007F")] {
            #expect {
                try DisplayName.check(bad, kind: "section name")
            } throws: { error in
                "\(error)".contains("section name") && "\(error)".contains(code) && !"\(error)".contains(bad)
            }
        }
    }

    @Test("error descriptions escape bidirectional controls, so a message reads in its own order")
    func printableBidi() {
        let error = IdentityError.badFormat(kind: "store name", text: "12 \u{202E}34", rule: "x")
        #expect(error.description == "store name \"12 \\u{202E}34\" is invalid: x")
    }

    @Test("error descriptions escape control characters")
    func printable() {
        let error = IdentityError.badFormat(kind: "device id", text: "a\nb", rule: "x")
        #expect(error.description == "device id \"a\\nb\" is invalid: x")
    }
}
