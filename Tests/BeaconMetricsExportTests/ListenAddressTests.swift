import BeaconMetricsExport
import Testing

/// `--metrics HOST:PORT` and `--listen HOST:PORT`.
@Suite("Listen addresses")
struct ListenAddressTests {
    @Test("host and port, IPv6 in brackets", arguments: [
        ("127.0.0.1:9464", "127.0.0.1", 9464), ("0.0.0.0:1", "0.0.0.0", 1), ("localhost:65535", "localhost", 65535),
        ("[::1]:9464", "::1", 9464),
    ])
    func parses(_ text: String, _ host: String, _ port: Int) throws {
        let address = try ListenAddress(parsing: text)
        #expect(address.host == host && address.port == port)
        #expect(address.description == text)
    }

    @Test("anything else is refused, saying why", arguments: [
        ("9464", ListenAddressError.malformed("9464")), (":9464", .missingHost(":9464")), ("::1:9464", .malformed("::1:9464")),
        ("host:0", .badPort("host:0")), ("host:65536", .badPort("host:65536")), ("host:http", .badPort("host:http")),
        ("[::1]9464", .malformed("[::1]9464")),
    ])
    func refuses(_ text: String, _ expected: ListenAddressError) {
        #expect(throws: expected) { try ListenAddress(parsing: text) }
    }
}
