@testable import BeaconDashboard
import BrokerHarness
import Foundation
import TestSupport

/// The real programs on a real broker, as the demo runs them: a private mosquitto, the
/// simulator's default chain (stores 101–103) decided by the real `beacon-aggregator` in event
/// time, `beacon-sim` publishing as every gateway at 10× real time, and the real
/// `beacon-dashboard` reading the broker and serving on a free loopback port, its users made by
/// `deploy/scripts/make-dashboard-users.sh`: ``user`` sees every store.
struct DashboardStack: Sendable {
    let broker: Broker
    let directory: String
    /// The dashboard's HTTP port.
    let httpPort: Int
    /// The user that sees every store, and its password.
    let user = "tester"
    let password: String
    /// Its session cookie (`name=value`).
    let cookie: String
    /// Requests to the dashboard, logged in.
    var http: HTTPProbe { HTTPProbe(port: httpPort, headers: ["Cookie": cookie]) }
    /// The page's address.
    var url: String { "http://127.0.0.1:\(httpPort)" }

    /// The package's executable `name` as `swift build --build-tests` left it.
    static func binary(_ name: String) throws -> String {
        guard let path = TestPaths.builtExecutable(name) else {
            throw HTTPProbe.Failure(description: "\(name) is not built: run swift build --build-tests first")
        }
        return path
    }

    /// `GET path` decoded as `T` (the API's snake_case JSON).
    func get<T: Decodable>(_ path: String, as: T.Type = T.self) async throws -> (status: Int, value: T) {
        try await http.getJSON(path, as: T.self)
    }

    /// The section counts `/api/stores` shows now, as `major/minor=count`.
    func sectionCounts() async throws -> [String] {
        try await get("/api/stores", as: StoresView.self).value.stores.flatMap { store in
            store.sections.map { "\(store.major)/\($0.minor)=\($0.count.map(String.init) ?? "-")" }
        }
    }

    /// Makes the users file `directory/users` with the shipped script: `tester` (every store),
    /// its password in `directory/dashboard-passwords/tester`.
    static func makeUsers(in directory: String) async throws -> String {
        let script = TestPaths.inPackage("deploy/scripts/make-dashboard-users.sh").path
        let bin = URL(fileURLWithPath: try binary("beacon-dashboard")).deletingLastPathComponent().path
        try await runCommand("/usr/bin/env", ["BEACONNET_BIN=\(bin)", script, "\(directory)/users", "tester"])
        return try String(contentsOfFile: "\(directory)/dashboard-passwords/tester", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Logs in to the dashboard on `port` as `user`; returns the session cookie.
    static func login(port: Int, user: String, password: String) async throws -> String {
        let reply = try await HTTPProbe(port: port).post("/login", form: "user=\(user)&password=\(password)")
        guard reply.status == 303, let cookie = reply.headers["set-cookie"]?.split(separator: ";").first else {
            throw HTTPProbe.Failure(description: "POST /login as \(user) → \(reply.status): \(reply.text.prefix(300))")
        }
        return String(cookie)
    }

    /// A program's log, for failure messages.
    func log(_ name: String) -> String {
        String(((try? String(contentsOfFile: "\(directory)/\(name).log", encoding: .utf8)) ?? "").suffix(3000))
    }
}

/// Runs `body` with a ``DashboardStack`` whose three stores are on the dashboard (layouts
/// published and read), and always stops the programs (SIGTERM, newest first) and the broker.
/// The dashboard reads `historyDatabase` (`--history-database`) when one is given.
func withDashboardStack<T>(
    isolation: isolated (any Actor)? = #isolation, historyDatabase: String? = nil,
    _ body: (DashboardStack) async throws -> T
) async throws -> T {
    let aggregatorBinary = try DashboardStack.binary("beacon-aggregator")
    let simBinary = try DashboardStack.binary("beacon-sim")
    let dashboardBinary = try DashboardStack.binary("beacon-dashboard")
    return try await withBroker { broker in
        let directory = try TestDirectory.make("dashboard").path
        try await runCommand(simBinary, ["chain"], output: "\(directory)/chain.json")
        let port = "\(broker.port)"
        let aggregator = try ChildProcess(executable: aggregatorBinary, arguments: [
            "run", "--config", "\(directory)/chain.json", "--port", port, "--id", "agg-test", "--event-time", "--status-interval", "1",
        ], outputFile: "\(directory)/aggregator.log")
        let httpPort = try Broker.unusedPort()
        let password = try await DashboardStack.makeUsers(in: directory)
        let dashboard = try ChildProcess(executable: dashboardBinary, arguments: [
            "--port", port, "--listen", "127.0.0.1:\(httpPort)", "--client-id", "dashboard-test", "--users", "\(directory)/users",
        ] + (historyDatabase.map { ["--history-database", $0] } ?? []), outputFile: "\(directory)/dashboard.log")
        let sim = try ChildProcess(executable: simBinary, arguments: [
            "run", "--host", "127.0.0.1", "--port", port, "--rate", "10", "--duration", "3000", "--seed", "7",
            "--arrival-interval", "5", "--truth", "\(directory)/truth.txt",
        ], outputFile: "\(directory)/sim.log")
        func stop() async {
            for process in [sim, dashboard, aggregator] {
                process.send(SIGTERM)
                if !(await process.waitForExit(timeout: .seconds(15))) { process.send(SIGKILL) }
            }
        }
        do {
            let cookie = try await pollAsync("a login to the dashboard", within: .seconds(300)) {
                try await DashboardStack.login(port: httpPort, user: "tester", password: password)
            }
            let stack = DashboardStack(broker: broker, directory: directory, httpPort: httpPort, password: password, cookie: cookie)
            _ = try await pollAsync("the dashboard shows the three stores' layouts", within: .seconds(60), every: .milliseconds(200)) {
                let stores = try await stack.get("/api/stores", as: StoresView.self).value.stores
                return stores.count == 3 && stores.allSatisfy(\.hasLayout) ? true : nil
            }
            let result = try await body(stack)
            await stop()
            return result
        } catch {
            for name in ["dashboard", "aggregator", "sim"] {
                let log = String(((try? String(contentsOfFile: "\(directory)/\(name).log", encoding: .utf8)) ?? "").suffix(3000))
                print("--- \(name) log ---\n\(log)\n--- end of \(name) log ---")
            }
            await stop()
            throw error
        }
    }
}

extension HTTPProbe {
    /// `GET path` decoded as `T` (the API's snake_case JSON), with its status.
    func getJSON<T: Decodable>(_ path: String, as: T.Type = T.self, timeout: Duration = .seconds(10)) async throws -> (status: Int, value: T) {
        let reply = try await get(path, timeout: timeout)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        do {
            return (reply.status, try decoder.decode(T.self, from: Data(reply.body)))
        } catch {
            throw Failure(description: "GET \(path) → \(reply.status): \(error); body: \(reply.text.prefix(400))")
        }
    }
}
