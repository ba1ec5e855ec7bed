public import BrokerHarness
import Foundation
public import Testing
import Synchronization

/// One PostgreSQL server for the whole test process, started by the first test that asks for
/// it and stopped when the process exits; each test takes a database of its own on it
/// (``database(_:)``), so tests run in parallel without seeing each other's rows. One server,
/// not one per test: `initdb` and a start cost seconds, a database a fraction of one.
public enum SharedPostgres {
    /// Whether PostgreSQL's binaries are installed (the tests that need a server are skipped,
    /// saying so, when they are not).
    public static var isInstalled: Bool { PostgresServer.installedBinaries != nil }

    /// The reason given where those tests are skipped.
    public static let skipReason: Comment = "no PostgreSQL binaries (apt-get install postgresql; deploy/scripts/install-deps.sh --test installs it)"

    private static let starting = Mutex<Task<PostgresServer, any Error>?>(nil)
    private static let counter = Atomic<Int>(0)

    /// The server, started on first use.
    public static func server() async throws -> PostgresServer {
        let task = starting.withLock { task in
            if let task { return task }
            let new = Task {
                let server = try await PostgresServer.start()
                stopAtExit(server)
                return server
            }
            task = new
            return new
        }
        return try await task.value
    }

    /// A new, empty database on the shared server, named after `prefix`; its URL as the superuser.
    public static func database(_ prefix: String = "history") async throws -> (server: PostgresServer, name: String, url: String) {
        let server = try await server()
        let number = counter.add(1, ordering: .relaxed).newValue
        let name = "\(prefix)_\(getpid())_\(number)".lowercased().filter { $0.isLetter || $0.isNumber || $0 == "_" }
        try await server.psql("CREATE DATABASE \(name)")
        return (server, name, server.url(database: name))
    }

    /// Kills the server when the test process exits: a test run leaves no server behind.
    private static func stopAtExit(_ server: PostgresServer) {
        exiting.withLock { $0 = server }
        atexit {
            guard let server = SharedPostgres.exiting.withLock({ $0 }) else { return }
            server.killNow()
        }
    }

    private static let exiting = Mutex<PostgresServer?>(nil)
}
