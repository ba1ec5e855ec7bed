import ArgumentParser
import BeaconCore
import BeaconDashboard
import BeaconMetricsExport
import BeaconCommandLine
import Foundation

/// The flags about the page itself: who may log in, the names it is reached by, and what its
/// listener holds (docs/DASHBOARD.md).
struct DashboardPageOptions: ParsableArguments {
    @Option(help: "The users file (NAME:STORES:HASH lines, made by deploy/scripts/make-dashboard-users.sh): who may log in, and which stores each may see.")
    var users: String?

    @Flag(help: "Serve without a login: whoever reaches the page sees the whole chain. Only with --listen on a loopback address.")
    var noLogin = false

    @Option(help: "A name (or address) the page is reached by, beyond localhost, 127.0.0.1 and ::1 and the --listen address; repeat for each. Requests naming another Host are refused (DNS rebinding).")
    var allowHost: [String] = []

    @Flag(help: "The page is reached over HTTPS through a proxy: the session cookie is marked Secure.")
    var behindTLS = false

    @Option(help: "Connections the page's listener holds open at once; past it new ones wait until one closes.")
    var maxConnections = 256

    @Option(help: "Seconds a connection may go without a complete request (idle, or a request head sent slowly) before it is closed.")
    var idleTimeout = 15.0

    @Option(help: "Event streams (open pages) at once; past it a page is refused and counted in /api/health.")
    var maxEventStreams = 100

    @Flag(help: "Read a password from standard input, print its bcrypt hash for a users file, and exit (make-dashboard-users.sh uses it).")
    var hashPassword = false

    func validate(listen: ListenAddress) throws {
        guard maxConnections >= 1 else { throw ValidationError("--max-connections \(maxConnections) is not 1 or more") }
        guard idleTimeout > 0, idleTimeout.isFinite else { throw ValidationError("--idle-timeout \(idleTimeout) is not a number of seconds above 0") }
        guard maxEventStreams >= 1 else { throw ValidationError("--max-event-streams \(maxEventStreams) is not 1 or more") }
        guard !hashPassword else { return }
        switch (users, noLogin) {
        case (nil, false):
            throw ValidationError("give --users FILE (made by deploy/scripts/make-dashboard-users.sh), or --no-login to serve without a login on the loopback only")
        case (.some, true):
            throw ValidationError("--users and --no-login exclude each other")
        case (nil, true):
            guard Self.isLoopback(listen.host) else {
                throw ValidationError("--no-login serves the page to whoever reaches it: only with --listen on a loopback address (127.0.0.1, ::1), not \(listen.host)")
            }
        case (.some, false):
            break
        }
    }

    /// Who may see the page; throws (exit 78) when the users file cannot be read or used.
    func access() throws -> DashboardAccess {
        guard let users else { return .open }
        let files = FileManager.default
        guard files.fileExists(atPath: users) else {
            throw ExitCode(.configError, saying: "the users file \(users) does not exist: make it with deploy/scripts/make-dashboard-users.sh")
        }
        guard files.isReadableFile(atPath: users), let contents = try? String(contentsOfFile: users, encoding: .utf8) else {
            throw ExitCode(.configError, saying: "the users file \(users) cannot be read as text by this user (its permissions, or not UTF-8)")
        }
        do {
            return .login(try DashboardUsers(contents: contents, path: users), secureCookie: behindTLS)
        } catch {
            throw ExitCode(.configError, saying: "the users file \(error)")
        }
    }

    /// `settings` with these flags applied.
    func apply(to settings: inout DashboardSettings) {
        settings.http = HTTPListenerLimits(maxConnections: maxConnections, idleTimeout: .milliseconds(Int64(idleTimeout * 1000)))
        settings.maxEventStreams = maxEventStreams
        settings.allowedHosts.formUnion(allowHost.map { $0.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]")) })
    }

    /// `--hash-password`: the bcrypt hash of the first line of standard input.
    static func printHash() throws {
        guard let password = readLine(strippingNewline: true), !password.isEmpty else {
            throw ExitCode(.usage, saying: "--hash-password reads a password from standard input: none was given")
        }
        print(DashboardUsers.passwordHash(password))
    }

    private static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
