import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// A plain client pointed at a TLS listener is told so at once, not left retrying a "connection
/// lost"; a plain broker that drops the connection is not mistaken for one.
@Suite("Connection: a plain client at a TLS port", .timeLimit(.minutes(2)))
struct TLSListenerTests {
    @Test("a plain connect to a TLS listener throws tlsRequired naming the address", arguments: [MQTTProtocolVersion.v311, .v5])
    func plainClientAtTLSPort(version: MQTTProtocolVersion) async throws {
        try await withBroker(BrokerConfiguration(tls: true)) { broker in
            var config = configuration(for: broker, clientID: "plain-at-tls", protocolVersion: version)
            config.port = try #require(broker.tlsPort)
            let client = MQTTClient(configuration: config, logger: testLogger)
            let error = await #expect(throws: MQTTError.self) { try await client.connect() }
            #expect(error == .tlsRequired(host: broker.host, port: config.port), "\(String(describing: error))")
            #expect(error?.description.contains("\(broker.host):\(config.port) answered with TLS") == true)
            await client.disconnect()
        }
    }

    @Test("a plain broker's port is not taken for TLS: nothing listening stays hostUnreachable")
    func plainPortsAreNotTLS() async throws {
        var config = MQTTConfiguration(port: try Broker.unusedPort(), clientID: "nobody-there", connectTimeout: .seconds(5))
        config.reconnect = .disabled
        let client = MQTTClient(configuration: config, logger: testLogger)
        let error = await #expect(throws: MQTTError.self) { try await client.connect() }
        guard case .hostUnreachable = error else {
            Issue.record("expected hostUnreachable, got \(String(describing: error))")
            return
        }
        await client.disconnect()
    }

    @Test("MQTTConnectBackoff: other failures are waited out, doubling; a port answering with TLS is given up on")
    func backoff() {
        var backoff = MQTTConnectBackoff(initialDelay: .seconds(1), maximumDelay: .seconds(4), tlsAnswerLimit: 3)
        let tls = MQTTError.tlsRequired(host: "h", port: 1)
        #expect(backoff.delay(after: .notConnected) == .seconds(1))
        #expect(backoff.delay(after: tls) == .seconds(2))
        #expect(backoff.delay(after: tls) == .seconds(4))
        #expect(backoff.delay(after: .notConnected) == .seconds(4), "a failure of another kind starts the TLS count again")
        #expect(backoff.delay(after: tls) != nil)
        #expect(backoff.delay(after: tls) != nil)
        #expect(backoff.delay(after: tls) == nil, "the third TLS answer in a row gives up")
        #expect(backoff.failures == 7)
        backoff.reset()
        #expect(backoff.failures == 0 && backoff.delay(after: tls) == .seconds(1))
    }
}
