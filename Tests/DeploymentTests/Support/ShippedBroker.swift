import BeaconMQTT
import BrokerHarness
import Foundation
import Logging
import TestSupport

/// One of the shipped broker configurations (`deploy/mosquitto/*.conf`) running here as it would
/// be installed: credentials made by `make-credentials.sh` in place of `/etc/mosquitto/beaconnet/`,
/// its two listeners (1883 on the loopback, 8883 with TLS) on free loopback ports, and the
/// dynamic-security plugin where this machine has it. Nothing else of the file is changed.
struct ShippedBroker: Sendable {
    let broker: InstalledBroker
    /// What make-credentials.sh wrote: dynamic-security.json, passwords/, mosquitto_ctrl, ca.crt.
    let credentials: String

    /// The file's `listener 1883 127.0.0.1`.
    var port: Int { broker.ports[0] }
    /// The file's TLS `listener 8883`.
    var tlsPort: Int { broker.ports[1] }
    /// The test CA that signed the TLS listener's certificate.
    var caFile: String { "\(credentials)/ca.crt" }
    /// The broker's log so far.
    var log: String { broker.log }

    /// The password make-credentials.sh gave `user`.
    func password(_ user: String) throws -> String {
        try String(contentsOfFile: "\(credentials)/passwords/\(user)", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A client logging in as `user` (its own password unless `password` is given) with client id
    /// `id`, over TLS or on the loopback listener; it never reconnects, so a refusal stays one.
    func client(_ user: String, id: String, password: String? = nil, tls: Bool = false) -> MQTTClient {
        var configuration = MQTTConfiguration(host: broker.host, port: tls ? tlsPort : port, clientID: id)
        configuration.username = user
        configuration.password = password ?? (try? self.password(user))
        if tls { configuration.tls = MQTTTLSConfiguration(caFile: caFile) }
        configuration.reconnect = .disabled
        return MQTTClient(configuration: configuration, logger: Logger(label: "test.shipped"))
    }

    /// How many times a client or a bridge connected with `id`, by the broker's log ("New client
    /// connected from … as ID (…)", "New bridge connected from …").
    func connections(as id: String) -> Int {
        log.split(separator: "\n").filter { $0.contains(" connected from ") && $0.contains(" as \(id) (") }.count
    }
}

/// Makes credentials for `users` (make-acl.sh arguments) with make-credentials.sh, installs
/// `deploy/mosquitto/<file>` with `replacing` applied to the file as shipped and then its paths and
/// ports moved here, runs `body` with the broker, and always stops it and removes its directory.
func withShippedBroker<T>(
    _ file: String, users: [String], replacing: [String: String] = [:],
    isolation: isolated (any Actor)? = #isolation,
    _ body: (ShippedBroker) async throws -> T
) async throws -> T {
    let directory = try TestDirectory.make("shipped-\(file)").path
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let credentials = "\(directory)/credentials"
    try await runCommand("/bin/bash", [TestPaths.inPackage("deploy/scripts/make-credentials.sh").path,
                                       credentials, "--host", "localhost"] + users)
    let plugin = try requirePlugin()
    let plain = try Broker.unusedPort(), tls = try Broker.unusedPort()
    var text = try String(contentsOf: TestPaths.inPackage("deploy/mosquitto/\(file)"), encoding: .utf8)
    for (shipped, replacement) in replacing {
        guard text.contains(shipped) else { throw BridgeTestError("\(file) has no \"\(shipped)\" to replace") }
        text = text.replacingOccurrences(of: shipped, with: replacement)
    }
    for (shipped, replacement) in [
        ("/etc/mosquitto/beaconnet/", credentials + "/"),
        ("listener 1883 127.0.0.1\n", "listener \(plain) 127.0.0.1\n"),
        ("listener 8883\n", "listener \(tls) 127.0.0.1\n"),
        ("plugin /usr/lib/x86_64-linux-gnu/mosquitto_dynamic_security.so\n", "plugin \(plugin)\n"),
    ] {
        guard text.contains(shipped) else { throw BridgeTestError("\(file) has no \"\(shipped)\" any more: update the test") }
        text = text.replacingOccurrences(of: shipped, with: replacement)
    }
    return try await withInstalledBroker(in: directory, configuration: text, ports: [plain, tls]) { broker in
        try await body(ShippedBroker(broker: broker, credentials: credentials))
    }
}

/// The dynamic-security plugin's path on this machine, or a failure that says what is missing.
private func requirePlugin() throws -> String {
    guard let plugin = Broker.dynamicSecurityPlugin else {
        throw BridgeTestError("mosquitto_dynamic_security.so not found: the shipped configs need Debian's mosquitto package")
    }
    return plugin
}
