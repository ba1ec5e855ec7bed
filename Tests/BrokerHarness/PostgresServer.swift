import Foundation
import Synchronization

/// A real PostgreSQL server on a free loopback port, in its own temporary directory, for the
/// history's tests and benchmark: Debian's `initdb` and `postgres`, never a mock.
///
/// PostgreSQL refuses to run as root, and tests here run as root: the server then runs as the
/// `postgres` user (Debian's package makes it), or `nobody`, through `setpriv` — which `exec`s, so
/// the process this harness holds is the postmaster itself, and a signal reaches it. The
/// directory is handed to that user. The superuser ``superuser`` logs in with ``password`` over
/// TCP (scram-sha-256) and without one over the Unix socket in the directory, which ``psql(_:database:)``
/// uses.
///
/// Start it with ``start(durable:)``; ``cleanUp()`` kills it and removes the directory (the
/// deinit of its process kills it too).
public final class PostgresServer: Sendable {
    /// The address it listens on.
    public let host = "127.0.0.1"
    /// Its superuser.
    public let superuser = "beacon"
    /// The superuser's password over TCP.
    public let password: String
    /// The temporary directory: `data/`, the socket, `server.log`.
    public let directory: String
    /// The directory of the binaries used.
    public let binaries: String
    private let durable: Bool
    private let runAs: UnprivilegedUser?
    private let state: Mutex<State>

    private struct State {
        var process: ChildProcess?
        var port: Int
        var cleanedUp = false
    }

    /// The port it listens on.
    public var port: Int { state.withLock { $0.port } }
    /// Whether the postmaster is alive.
    public var isRunning: Bool { state.withLock { $0.process }?.isRunning ?? false }
    /// The server's log so far.
    public var log: String { (try? String(contentsOfFile: "\(directory)/server.log", encoding: .utf8)) ?? "" }

    /// The directory holding Debian's PostgreSQL binaries (`/usr/lib/postgresql/<version>/bin`,
    /// the newest), or the one holding `initdb` on `PATH`; nil when there are none.
    public static let installedBinaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).compactMap(Int.init).sorted(by: >)
        for version in versions where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/postgres") {
            return "\(root)/\(version)/bin"
        }
        guard let initdb = Command.locate("initdb") else { return nil }
        let directory = URL(fileURLWithPath: initdb).resolvingSymlinksInPath().deletingLastPathComponent().path
        return FileManager.default.isExecutableFile(atPath: "\(directory)/postgres") ? directory : nil
    }()

    private init(directory: String, binaries: String, durable: Bool, runAs: UnprivilegedUser?, port: Int) {
        self.directory = directory
        self.binaries = binaries
        self.durable = durable
        self.runAs = runAs
        password = "pw-\(UInt64.random(in: 0...UInt64.max))"
        state = Mutex(State(port: port))
    }

    deinit {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Makes a cluster in a new temporary directory and starts its server. `durable: false` (for
    /// tests) turns off fsync; `true` (for measurements) keeps PostgreSQL's defaults.
    public static func start(durable: Bool = false) async throws -> PostgresServer {
        guard let binaries = installedBinaries else { throw PostgresServerError.notInstalled }
        let directory = try makeDirectory()
        do {
            let server = PostgresServer(
                directory: directory, binaries: binaries, durable: durable, runAs: try unprivilegedUser(), port: try Command.freePort())
            try await server.initialise()
            try await server.launch(choosingPort: true)
            return server
        } catch {
            try? FileManager.default.removeItem(atPath: directory)
            throw error
        }
    }

    /// A `postgres://` URL for `database` as `user` (the superuser by default) with `password`.
    public func url(database: String, user: String? = nil, password: String? = nil) -> String {
        "postgres://\(user ?? superuser):\(password ?? self.password)@\(host):\(port)/\(database)?sslmode=disable"
    }

    /// Runs `sql` with `psql` as the superuser over the Unix socket; stops at the first error.
    public func psql(_ sql: String, database: String = "postgres") async throws {
        try await Command.run("\(binaries)/psql", [
            "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", directory, "-p", "\(port)", "-U", superuser, "-d", database, "-c", sql,
        ])
    }

    /// Starts the server again after ``stop()`` or ``kill()``, on the same port.
    public func start() async throws {
        try await launch(choosingPort: false)
    }

    /// A fast shutdown (SIGINT: sessions are ended, the data is saved), and waits for the exit.
    public func stop() async throws {
        guard let process = state.withLock({ $0.process }), process.isRunning else { return }
        process.send(SIGINT)
        if await process.waitForExit(timeout: harnessReadinessLimit) { return }
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(10))
        throw PostgresServerError.stopTimedOut(pid: process.pid)
    }

    /// SIGKILL of the postmaster, and waits (its backends end when they see it gone).
    public func kill() async {
        guard let process = state.withLock({ $0.process }), process.isRunning else { return }
        process.send(SIGKILL)
        _ = await process.waitForExit(timeout: .seconds(10))
    }

    /// Stops the server (immediately) and removes the directory; idempotent.
    public func cleanUp() async {
        if let process = state.withLock({ $0.process }), process.isRunning {
            process.send(SIGQUIT)  // immediate shutdown: the backends go with it
            if !(await process.waitForExit(timeout: .seconds(10))) { await kill() }
        }
        let first = state.withLock { state in
            defer { state.cleanedUp = true }
            return !state.cleanedUp
        }
        if first { try? FileManager.default.removeItem(atPath: directory) }
    }

    /// ``cleanUp()`` without waiting on the cooperative pool, for an `atexit` handler: an
    /// immediate shutdown, up to 5 s for the exit, then the directory goes.
    public func killNow() {
        if let process = state.withLock({ $0.process }), process.isRunning {
            process.send(SIGQUIT)
            for _ in 0..<100 where process.isRunning { usleep(50_000) }
            process.send(SIGKILL)
        }
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// `initdb` as the unprivileged user: the superuser, its password, trust on the socket.
    private func initialise() async throws {
        let passwordFile = "\(directory)/superuser-password"
        try password.write(toFile: passwordFile, atomically: true, encoding: .utf8)
        try handOver(passwordFile)
        let command = runAsArguments + [
            "\(binaries)/initdb", "-D", "\(directory)/data", "-U", superuser, "--pwfile=\(passwordFile)",
            "--auth-host=scram-sha-256", "--auth-local=trust", "--no-sync", "-E", "UTF8", "--locale=C",
        ]
        try await Command.run(command[0], Array(command.dropFirst()), output: "\(directory)/initdb.log")
        try? FileManager.default.removeItem(atPath: passwordFile)
    }

    /// `setpriv` and its arguments to run a program as the unprivileged user; empty when this
    /// process is not root (it runs the server itself).
    private var runAsArguments: [String] {
        guard let runAs else { return [] }
        return [Command.locate("setpriv", candidates: ["/usr/bin/setpriv"]) ?? "/usr/bin/setpriv", "--reuid=\(runAs.uid)", "--regid=\(runAs.gid)", "--clear-groups", "--"]
    }

    private func launch(choosingPort: Bool) async throws {
        var attempts = 0
        while true {
            attempts += 1
            let port = self.port
            let logged = log.utf8.count
            let process = try spawn(port: port)
            do {
                try await waitUntilReady(process, port: port, loggedBefore: logged)
                return
            } catch {
                process.send(SIGKILL)
                _ = await process.waitForExit(timeout: .seconds(10))
                // Another process took the port between freePort() and the server's bind.
                guard choosingPort, attempts < 5, log.contains("could not bind") else { throw error }
                let newPort = try Command.freePort()
                state.withLock { $0.port = newPort }
            }
        }
    }

    private func spawn(port: Int) throws -> ChildProcess {
        var settings = ["listen_addresses=\(host)", "unix_socket_directories=\(directory)", "max_connections=60"]
        if !durable { settings += ["fsync=off", "synchronous_commit=off", "full_page_writes=off"] }
        let server = ["\(binaries)/postgres", "-D", "\(directory)/data", "-p", "\(port)"] + settings.flatMap { ["-c", $0] }
        let arguments = runAsArguments + server
        let process = try ChildProcess(executable: arguments[0], arguments: Array(arguments.dropFirst()), outputFile: "\(directory)/server.log")
        state.withLock { $0.process = process }
        return process
    }

    /// Waits until this run says it is ready and the port accepts.
    private func waitUntilReady(_ process: ChildProcess, port: Int, loggedBefore: Int) async throws {
        let deadline = ContinuousClock.now + harnessReadinessLimit
        while ContinuousClock.now < deadline {
            guard process.isRunning else { throw PostgresServerError.startFailed(reason: "postgres exited", log: String(log.suffix(2000))) }
            let ran = String(decoding: log.utf8.dropFirst(loggedBefore), as: UTF8.self)
            if ran.contains("ready to accept connections"), Command.accepts(port: port) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw PostgresServerError.startFailed(reason: "not ready after \(harnessReadinessLimit)", log: String(log.suffix(2000)))
    }

    /// Gives `path` to the unprivileged user.
    private func handOver(_ path: String) throws {
        guard let runAs else { return }
        guard chown(path, runAs.uid, runAs.gid) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM) }
    }

    /// The user the server runs as when this process is root: `postgres`, else `nobody`.
    private static func unprivilegedUser() throws -> UnprivilegedUser? {
        guard geteuid() == 0 else { return nil }
        for name in ["postgres", "nobody"] {
            if let entry = getpwnam(name) { return UnprivilegedUser(uid: entry.pointee.pw_uid, gid: entry.pointee.pw_gid) }
        }
        throw PostgresServerError.noUnprivilegedUser
    }

    /// A new directory, owned by the user the server runs as.
    private static func makeDirectory() throws -> String {
        // As root, under /tmp: the unprivileged user must be able to reach the directory, and a
        // TMPDIR of root's own (under /root, say) would not let it.
        let base = geteuid() == 0 ? "/tmp/" : NSTemporaryDirectory()
        var template = Array("\(base)beaconnet-postgres-XXXXXX".utf8CString)
        guard let path = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        let directory = String(cString: path)
        if let user = try unprivilegedUser() {
            guard chown(directory, user.uid, user.gid) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EPERM) }
        }
        return directory
    }
}

/// The user a server started by root runs as.
private struct UnprivilegedUser: Sendable {
    var uid: uid_t
    var gid: gid_t
}

/// Why a ``PostgresServer`` could not be had.
public enum PostgresServerError: Error, Sendable, CustomStringConvertible {
    /// No PostgreSQL binaries under /usr/lib/postgresql or on `PATH`.
    case notInstalled
    /// Running as root, and neither `postgres` nor `nobody` exists to run the server as.
    case noUnprivilegedUser
    /// The server exited during start-up or did not get ready; `log` is the tail of its log.
    case startFailed(reason: String, log: String)
    /// The server did not stop after SIGINT.
    case stopTimedOut(pid: Int32)

    /// What went wrong, and what to do.
    public var description: String {
        switch self {
        case .notInstalled:
            "no PostgreSQL binaries under /usr/lib/postgresql/*/bin or on PATH: apt-get install postgresql (deploy/scripts/install-deps.sh --test does)"
        case .noUnprivilegedUser:
            "PostgreSQL refuses to run as root, and there is no postgres or nobody user to run it as"
        case .startFailed(let reason, let log):
            "PostgreSQL did not start: \(reason)\n--- server log ---\n\(log)"
        case .stopTimedOut(let pid):
            "PostgreSQL (pid \(pid)) did not stop after SIGINT"
        }
    }
}
