import BeaconMQTT
import BrokerHarness
import Foundation
import Logging
import TestSupport
import Testing

/// The shipped `deploy/mosquitto/central.conf`, run by a real mosquitto installed as its header
/// says (into conf.d/, under a Debian-like main config that sets persistence itself), with only its
/// paths and ports moved and the credentials made by `make-credentials.sh`.
@Suite("Deployment: central broker config", .hangLimit)
struct CentralConfigTests {
    @Test("TLS with the deployment's CA and a password works; a wrong CA and anonymous clients are refused")
    func shippedCentralConfig() async throws {
        let other = try TestDirectory.make("central-other").path
        defer { try? FileManager.default.removeItem(atPath: other) }
        try await runCommand("/bin/bash", [ACLTests.root.appendingPathComponent("deploy/scripts/make-credentials.sh").path,
                                           other, "--host", "localhost", "--dashboard", "dash"])
        try await withShippedBroker("central.conf", users: ["--aggregator", "agg-1", "--dashboard", "dash"]) { central in
            let password = try central.password("agg-1")
            func client(port: Int, ca: String?, user: String?, password: String?) -> MQTTClient {
                // The aggregator's sightings login is bound to the client id it connects with.
                let id = user == "agg-1" ? "beacon-aggregator-agg-1" : "central-\(UInt32.random(in: 0...UInt32.max))"
                var c = MQTTConfiguration(host: "127.0.0.1", port: port, clientID: id)
                c.tls = ca.map { MQTTTLSConfiguration(caFile: $0) }
                c.username = user
                c.password = password
                c.reconnect = .disabled
                return MQTTClient(configuration: c, logger: Logger(label: "test.central"))
            }
            let good = client(port: central.tlsPort, ca: central.caFile, user: "agg-1", password: password)
            try await good.connect()
            _ = try await good.subscribe(to: ["beaconnet/events/#"], qos: .atLeastOnce)
            await good.disconnect()

            let wrongCA = client(port: central.tlsPort, ca: other + "/ca.crt", user: "agg-1", password: password)
            await #expect(throws: MQTTError.self) { try await wrongCA.connect() }
            await wrongCA.disconnect()
            let anonymous = client(port: central.port, ca: nil, user: nil, password: nil)
            await #expect(throws: MQTTError.self) { try await anonymous.connect() }
            await anonymous.disconnect()
            let badPassword = client(port: central.port, ca: nil, user: "agg-1", password: "wrong")
            await #expect(throws: MQTTError.self) { try await badPassword.connect() }
            await badPassword.disconnect()
        }
    }
}
