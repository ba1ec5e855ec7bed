import BeaconMQTT
import BrokerHarness
import Foundation
import Logging
import Testing

/// The shipped `deploy/mosquitto/central.conf`, run by a real mosquitto with its paths and ports
/// pointed at a temporary directory and credentials made by `make-credentials.sh`.
@Suite("Deployment: central broker config", .timeLimit(.minutes(2)))
struct CentralConfigTests {
    @Test("TLS with the deployment's CA and a password works; a wrong CA and anonymous clients are refused")
    func shippedCentralConfig() async throws {
        let root = ACLTests.root
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("beaconnet-central-\(UInt32.random(in: 0...UInt32.max))").path
        let other = dir + "-other"
        defer {
            try? FileManager.default.removeItem(atPath: dir)
            try? FileManager.default.removeItem(atPath: other)
        }
        let make = root.appendingPathComponent("deploy/scripts/make-credentials.sh").path
        try await runCommand("/bin/bash", [make, dir, "--host", "localhost", "--aggregator", "agg-1", "--dashboard", "dash"])
        try await runCommand("/bin/bash", [make, other, "--host", "localhost", "--dashboard", "dash"])

        let plain = try Broker.unusedPort(), tls = try Broker.unusedPort()
        // Installed as its header says: into conf.d/, included by a main config like Debian's
        // (which sets persistence itself), only paths and ports changed.
        var config = try String(contentsOf: root.appendingPathComponent("deploy/mosquitto/central.conf"), encoding: .utf8)
        config = config.replacingOccurrences(of: "/etc/mosquitto/beaconnet/", with: dir + "/")
            .replacingOccurrences(of: "listener 1883 127.0.0.1", with: "listener \(plain) 127.0.0.1")
            .replacingOccurrences(of: "listener 8883\n", with: "listener \(tls) 127.0.0.1\n")
        try FileManager.default.createDirectory(atPath: dir + "/conf.d", withIntermediateDirectories: true)
        try config.write(toFile: dir + "/conf.d/beaconnet.conf", atomically: false, encoding: .utf8)
        // Debian's /etc/mosquitto/mosquitto.conf, with its paths moved here. As root the test
        // keeps the broker root: the credentials it just made are root's (see the README on
        // their ownership for a real install).
        let main = "persistence true\npersistence_location \(dir)/\nlog_dest file \(dir)/mosquitto.log\ninclude_dir \(dir)/conf.d\n"
            + (geteuid() == 0 ? "user root\n" : "")
        try main.write(toFile: dir + "/mosquitto.conf", atomically: false, encoding: .utf8)
        let mosquitto = ["/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"].first { FileManager.default.isExecutableFile(atPath: $0) } ?? "mosquitto"
        let broker = try ChildProcess(executable: mosquitto, arguments: ["-c", dir + "/mosquitto.conf"], outputFile: dir + "/stderr.log")
        defer { broker.send(SIGKILL) }

        let password = try String(contentsOfFile: dir + "/passwords/agg-1", encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        func client(port: Int, ca: String?, user: String?, password: String?) -> MQTTClient {
            var c = MQTTConfiguration(host: "127.0.0.1", port: port, clientID: "central-\(UInt32.random(in: 0...UInt32.max))")
            c.tls = ca.map { MQTTTLSConfiguration(caFile: $0) }
            c.username = user
            c.password = password
            c.reconnect = .disabled
            return MQTTClient(configuration: c, logger: Logger(label: "test.central"))
        }
        // The broker needs a moment: retry the good client until it connects.
        let good = client(port: tls, ca: dir + "/ca.crt", user: "agg-1", password: password)
        var connected = false
        for _ in 0..<100 where !connected {
            do { try await good.connect(); connected = true } catch { try await Task.sleep(for: .milliseconds(50)) }
        }
        #expect(connected, "agg-1 over TLS with the deployment CA")
        if connected { _ = try await good.subscribe(to: ["beaconnet/events/#"], qos: .atLeastOnce) }
        await good.disconnect()

        let wrongCA = client(port: tls, ca: other + "/ca.crt", user: "agg-1", password: password)
        await #expect(throws: MQTTError.self) { try await wrongCA.connect() }
        await wrongCA.disconnect()
        let anonymous = client(port: plain, ca: nil, user: nil, password: nil)
        await #expect(throws: MQTTError.self) { try await anonymous.connect() }
        await anonymous.disconnect()
        let badPassword = client(port: plain, ca: nil, user: "agg-1", password: "wrong")
        await #expect(throws: MQTTError.self) { try await badPassword.connect() }
        await badPassword.disconnect()
    }
}
