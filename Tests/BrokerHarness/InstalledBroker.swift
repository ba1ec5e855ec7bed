import Foundation

/// mosquitto run from a deployment's own configuration file, installed the way Debian's package
/// expects it: the file in `conf.d/`, included by a main `mosquitto.conf` that sets persistence
/// (as Debian's does — mosquitto refuses a second `persistence_location`) and the log.
///
/// Unlike ``Broker``, the harness writes no listener: the file's own listeners are used, their
/// ports and paths already pointed by the caller at free ports and its directory. Use
/// ``withInstalledBroker(in:configuration:ports:isolation:_:)``, which always kills the process.
public final class InstalledBroker: Sendable {
    /// The address the test points the file's listeners at.
    public let host = "127.0.0.1"
    /// The directory holding `mosquitto.conf`, `conf.d/`, the database and the log.
    public let directory: String
    /// The ports the file listens on, in the order the caller gave them.
    public let ports: [Int]
    private let process: ChildProcess

    /// The mosquitto log so far (connections, refusals, bridge state), for assertions and failures.
    public var log: String {
        (try? String(contentsOfFile: "\(directory)/mosquitto.log", encoding: .utf8)) ?? ""
    }

    private init(directory: String, ports: [Int], process: ChildProcess) {
        self.directory = directory
        self.ports = ports
        self.process = process
    }

    /// Writes `configuration` as `conf.d/beaconnet.conf` in `directory`, starts mosquitto on a main
    /// config including it, and waits until every one of `ports` accepts connections.
    public static func start(in directory: String, configuration: String, ports: [Int]) async throws -> InstalledBroker {
        guard let executable = Command.locate(
            "mosquitto", candidates: ["/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"])
        else { throw BrokerHarnessError.mosquittoNotFound }
        try FileManager.default.createDirectory(atPath: "\(directory)/conf.d", withIntermediateDirectories: true)
        try configuration.write(toFile: "\(directory)/conf.d/beaconnet.conf", atomically: false, encoding: .utf8)
        // As root mosquitto would switch to the "mosquitto" user, who cannot read the test's
        // root-only credentials; "user root" keeps it as it is (a real install hands them to
        // mosquitto instead).
        let main = [
            "persistence true", "persistence_location \(directory)/",
            "log_dest file \(directory)/mosquitto.log", "include_dir \(directory)/conf.d",
        ] + (geteuid() == 0 ? ["user root"] : [])
        try (main.joined(separator: "\n") + "\n").write(toFile: "\(directory)/mosquitto.conf", atomically: false, encoding: .utf8)
        let process = try ChildProcess(
            executable: executable, arguments: ["-c", "\(directory)/mosquitto.conf"], outputFile: "\(directory)/stderr.log")
        let broker = InstalledBroker(directory: directory, ports: ports, process: process)
        let deadline = ContinuousClock.now + harnessReadinessLimit
        // Its own "running" line too: a port another process holds still accepts (see Broker).
        while !(broker.log.contains(" running") && ports.allSatisfy(Command.accepts(port:))) {
            guard process.isRunning, ContinuousClock.now < deadline else {
                await broker.kill()
                throw BrokerHarnessError.startFailed(
                    reason: process.isRunning ? "ports \(ports) not accepting after \(harnessReadinessLimit)" : "mosquitto exited",
                    log: broker.log + broker.stderrLog)
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        return broker
    }

    /// SIGKILL and wait.
    public func kill() async {
        guard process.isRunning else { return }
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(10))
    }

    private var stderrLog: String {
        (try? String(contentsOfFile: "\(directory)/stderr.log", encoding: .utf8)) ?? ""
    }
}

/// Starts an ``InstalledBroker``, runs `body` with it, and always kills it, whether `body`
/// returns or throws (printing the broker's log first when it throws). The directory is the
/// caller's to remove.
public func withInstalledBroker<T>(
    in directory: String, configuration: String, ports: [Int],
    isolation: isolated (any Actor)? = #isolation,
    _ body: (InstalledBroker) async throws -> T
) async throws -> T {
    let broker = try await InstalledBroker.start(in: directory, configuration: configuration, ports: ports)
    do {
        let result = try await body(broker)
        await broker.kill()
        return result
    } catch {
        print("--- mosquitto log in \(directory) (test threw \(error)) ---\n\(broker.log)--- end of mosquitto log ---")
        await broker.kill()
        throw error
    }
}
