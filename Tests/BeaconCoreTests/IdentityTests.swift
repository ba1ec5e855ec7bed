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

    @Test("valid device ids", arguments: ["ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-1-2", "mac-AA:BB:CC:DD:EE:FF", "eu-0102-0a"])
    func validDevice(_ text: String) throws {
        #expect(try DeviceID(text).rawValue == text)
    }

    @Test("invalid device ids name the problem")
    func invalidDevice() {
        #expect(throws: IdentityError.empty(kind: "device id")) { try DeviceID("") }
        #expect(throws: IdentityError.tooLong(kind: "device id", length: 97, limit: 96)) {
            try DeviceID(String(repeating: "x", count: 97))
        }
        for bad in ["a/b", "a+b", "a#b", "a b", "a\u{0}b", "a\nb", "é"] {
            #expect(throws: IdentityError.self) { try DeviceID(bad) }
        }
    }

    @Test("error descriptions escape control characters")
    func printable() {
        let error = IdentityError.badFormat(kind: "device id", text: "a\nb", rule: "x")
        #expect(error.description == "device id \"a\\nb\" is invalid: x")
    }
}
