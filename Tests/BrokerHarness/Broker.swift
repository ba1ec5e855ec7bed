import Foundation
import Synchronization

/// A real mosquitto on free loopback ports, in its own temporary directory, for integration
/// tests. Each test starts its own, so tests can run in parallel.
///
/// Use ``withBroker(_:isolation:_:)``: it always kills the process and removes the directory,
/// also when the test throws. The broker can be stopped and started again on the same ports
/// (reconnect tests), killed, or frozen with SIGSTOP (a broker that accepts bytes but never
/// answers).
public final class Broker: Sendable {
    /// The address every listener binds to.
    public let host = "127.0.0.1"
    /// The temporary directory with the config, password file, certificates, log and database.
    public let directory: String
    /// What this broker was started with.
    public let configuration: BrokerConfiguration
    /// The CA that signed the TLS listener's certificate (`configuration.tls` only).
    public let certificateAuthority: TestCertificateAuthority?

    private let executable: String
    private let serverCertificate: (certificateFile: String, keyFile: String)?
    private let state: Mutex<State>

    private struct State {
        var process: ChildProcess?
        var port: Int
        var tlsPort: Int?
        var cleanedUp = false
    }

    /// The plain MQTT listener's port.
    public var port: Int { state.withLock { $0.port } }
    /// The TLS listener's port (`configuration.tls` only).
    public var tlsPort: Int? { state.withLock { $0.tlsPort } }
    /// The CA certificate a client should trust for the TLS listener.
    public var caFile: String? { certificateAuthority?.certificateFile }
    /// The mosquitto process's id while it runs (a benchmark reads its memory from /proc).
    public var processID: Int32? { state.withLock { $0.process }.map(\.pid) }

    /// Whether the mosquitto process is alive (a paused one counts).
    public var isRunning: Bool { state.withLock { $0.process }?.isRunning ?? false }
    /// The mosquitto log so far (connections, refusals, errors), for failure messages.
    public var log: String {
        (try? String(contentsOfFile: "\(directory)/mosquitto.log", encoding: .utf8)) ?? ""
    }

    private init(
        directory: String, configuration: BrokerConfiguration, executable: String,
        certificateAuthority: TestCertificateAuthority?,
        serverCertificate: (certificateFile: String, keyFile: String)?, port: Int, tlsPort: Int?
    ) {
        self.directory = directory
        self.configuration = configuration
        self.executable = executable
        self.certificateAuthority = certificateAuthority
        self.serverCertificate = serverCertificate
        self.state = Mutex(State(port: port, tlsPort: tlsPort))
    }

    deinit {
        // Safety net for a broker used without withBroker: the process is killed by its own
        // deinit; the directory goes here.
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Makes the directory, files and certificates, starts mosquitto and waits until its
    /// listeners accept connections. Prefer ``withBroker(_:isolation:_:)``.
    public static func start(_ configuration: BrokerConfiguration = BrokerConfiguration()) async throws -> Broker {
        guard let executable = Command.locate(
            "mosquitto", candidates: ["/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"])
        else { throw BrokerHarnessError.mosquittoNotFound }
        let directory = try makeTemporaryDirectory()
        do {
            var authority: TestCertificateAuthority?
            var server: (certificateFile: String, keyFile: String)?
            if configuration.tls {
                let ca = try await TestCertificateAuthority.create(in: directory, name: "ca")
                server = try await ca.issueServerCertificate(in: directory, name: "server")
                authority = ca
            }
            if !configuration.users.isEmpty {
                guard let passwd = Command.locate("mosquitto_passwd", candidates: ["/usr/bin/mosquitto_passwd"]) else {
                    throw BrokerHarnessError.commandFailed(
                        command: "mosquitto_passwd", status: -1, output: "not found: apt-get install mosquitto")
                }
                let file = "\(directory)/passwd"
                _ = FileManager.default.createFile(atPath: file, contents: nil)
                for (user, password) in configuration.users.sorted(by: { $0.key < $1.key }) {
                    try await Command.run(passwd, ["-b", file, user, password])
                }
            }
            if let file = configuration.dynamicSecurity {
                guard Self.dynamicSecurityPlugin != nil else { throw BrokerHarnessError.dynamicSecurityPluginNotFound }
                try FileManager.default.copyItem(atPath: file, toPath: "\(directory)/dynamic-security.json")
            }
            let broker = Broker(
                directory: directory, configuration: configuration, executable: executable,
                certificateAuthority: authority, serverCertificate: server,
                port: try Command.freePort(), tlsPort: configuration.tls ? try Command.freePort() : nil)
            try await broker.launch(choosingPorts: true)
            return broker
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// Starts mosquitto again after ``stop()`` or ``kill()``, on the same ports, and waits until
    /// it accepts connections. With ``BrokerConfiguration/persistence`` it reloads its database.
    public func start() async throws {
        try await launch(choosingPorts: false)
    }

    /// SIGTERM, then waits for the exit (mosquitto saves its database first). SIGKILL after
    /// ``harnessReadinessLimit``.
    public func stop() async throws {
        guard let process = state.withLock({ $0.process }), process.isRunning else { return }
        process.send(SIGCONT)  // a paused broker cannot handle SIGTERM
        process.send(SIGTERM)
        if await process.waitForExit(timeout: harnessReadinessLimit) { return }
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(5))
        throw BrokerHarnessError.stopTimedOut(pid: process.pid)
    }

    /// SIGKILL and wait: the broker vanishes without closing anything cleanly.
    public func kill() async {
        guard let process = state.withLock({ $0.process }), process.isRunning else { return }
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(10))
    }

    /// SIGSTOP: the broker keeps its sockets open but answers nothing (TCP still accepts).
    public func pause() {
        state.withLock { $0.process }?.send(SIGSTOP)
    }

    /// SIGCONT after ``pause()``.
    public func resume() {
        state.withLock { $0.process }?.send(SIGCONT)
    }

    /// Kills the process if it runs and removes the directory. Idempotent; ``withBroker(_:isolation:_:)``
    /// calls it.
    public func cleanUp() async {
        await kill()
        let first = state.withLock { state in
            defer { state.cleanedUp = true }
            return !state.cleanedUp
        }
        if first { try? FileManager.default.removeItem(atPath: directory) }
    }

    private func launch(choosingPorts: Bool) async throws {
        var attempts = 0
        while true {
            attempts += 1
            let (port, tlsPort) = state.withLock { ($0.port, $0.tlsPort) }
            try writeConfiguration(port: port, tlsPort: tlsPort)
            let logged = log.utf8.count  // what earlier runs of this broker logged
            let process = try spawn()
            do {
                try await waitUntilAccepting(process, ports: [port] + (tlsPort.map { [$0] } ?? []), loggedBefore: logged)
                return
            } catch {
                process.send(SIGKILL)
                _ = await process.waitForExit(timeout: .seconds(5))
                // Someone took a port between freePort() and mosquitto's bind: pick new ones.
                guard choosingPorts, attempts < 5, (log + stderrLog).contains("Address already in use") else { throw error }
                let newPort = try Command.freePort()
                let newTLSPort = tlsPort == nil ? nil : try Command.freePort()
                state.withLock {
                    $0.port = newPort
                    $0.tlsPort = newTLSPort
                }
            }
        }
    }

    private func spawn() throws -> ChildProcess {
        try state.withLock { state in
            if let process = state.process, process.isRunning { return process }
            let process = try ChildProcess(
                executable: executable, arguments: ["-c", "\(directory)/mosquitto.conf"],
                outputFile: "\(directory)/stderr.log")
            state.process = process
            return process
        }
    }

    /// Waits until this mosquitto says it runs and every port accepts. A port that accepts is not
    /// enough: when another process took it between ``Command/freePort()`` and mosquitto's bind,
    /// mosquitto exits ("Address already in use") while the port still accepts — the other's.
    private func waitUntilAccepting(_ process: ChildProcess, ports: [Int], loggedBefore: Int) async throws {
        func ready() -> Bool {
            String(decoding: log.utf8.dropFirst(loggedBefore), as: UTF8.self).contains(" running")
                && ports.allSatisfy(Command.accepts(port:))
        }
        let deadline = ContinuousClock.now + harnessReadinessLimit
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                throw BrokerHarnessError.startFailed(reason: "mosquitto exited", log: tail(log + stderrLog))
            }
            if ready() { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        // One last look: under load this task may only wake after the deadline, though mosquitto
        // has long been listening.
        if process.isRunning, ready() { return }
        throw BrokerHarnessError.startFailed(reason: "ports \(ports) not accepting after \(harnessReadinessLimit)", log: tail(log + stderrLog))
    }

    private func writeConfiguration(port: Int, tlsPort: Int?) throws {
        var lines = [
            "# Generated by BrokerHarness for one test.",
            "per_listener_settings false",
            "allow_anonymous \(configuration.allowAnonymous)",
            "log_dest file \(directory)/mosquitto.log",
            "log_type error", "log_type warning", "log_type notice", "log_type information",
            "connection_messages true",
        ]
        // As root mosquitto would switch to the "mosquitto" user, who cannot read this 0700
        // directory; "user root" keeps it as it is.
        if geteuid() == 0 { lines.append("user root") }
        if !configuration.users.isEmpty { lines.append("password_file \(directory)/passwd") }
        if configuration.persistence {
            lines += ["persistence true", "persistence_location \(directory)/"]
        }
        if configuration.dynamicSecurity != nil, let plugin = Self.dynamicSecurityPlugin {
            lines += ["plugin \(plugin)", "plugin_opt_config_file \(directory)/dynamic-security.json"]
        }
        if let size = configuration.maxPacketSize { lines.append("max_packet_size \(size)") }
        lines.append("listener \(port) \(host)")
        if let tlsPort, let ca = certificateAuthority, let server = serverCertificate {
            lines += [
                "listener \(tlsPort) \(host)",
                "cafile \(ca.certificateFile)",
                "certfile \(server.certificateFile)",
                "keyfile \(server.keyFile)",
            ]
        }
        lines += configuration.extraConfiguration
        try (lines.joined(separator: "\n") + "\n").write(
            toFile: "\(directory)/mosquitto.conf", atomically: false, encoding: .utf8)
    }

    private func tail(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).suffix(30).joined(separator: "\n")
    }

    private var stderrLog: String {
        (try? String(contentsOfFile: "\(directory)/stderr.log", encoding: .utf8)) ?? ""
    }

    private static func makeTemporaryDirectory() throws -> String {
        var template = Array("\(NSTemporaryDirectory())beaconnet-broker-XXXXXX".utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        return String(cString: path)
    }

    /// Where mosquitto's dynamic-security plugin is: Debian's multiarch library directory (the
    /// path the shipped broker configurations name is the amd64 one), or a source build's.
    public static let dynamicSecurityPlugin: String? = {
        let name = "mosquitto_dynamic_security.so"
        let directories = ["/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu", "/usr/lib/arm-linux-gnueabihf",
                           "/usr/lib", "/usr/local/lib", "/usr/lib/mosquitto"]
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.fileExists(atPath: $0) }
    }()

    /// A loopback port nothing listens on (for "connection refused" tests).
    public static func unusedPort() throws -> Int {
        try Command.freePort()
    }
}

/// Starts a broker, runs `body` with it, and always kills it and removes its directory,
/// whether `body` returns or throws. When `body` throws, the broker's log is printed first
/// (the directory is about to go), since it usually says what the broker saw.
public func withBroker<T>(
    _ configuration: BrokerConfiguration = BrokerConfiguration(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Broker) async throws -> T
) async throws -> T {
    let broker = try await Broker.start(configuration)
    do {
        let result = try await body(broker)
        await broker.cleanUp()
        return result
    } catch {
        print("--- mosquitto log on port \(broker.port) (test threw \(error)) ---\n\(broker.log)--- end of mosquitto log ---")
        await broker.cleanUp()
        throw error
    }
}
