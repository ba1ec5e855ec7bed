import BrokerHarness
import Foundation
import TestSupport
import Testing

/// beacon-dashboard against the shipped central broker (`central.conf`, dynamic security): as a
/// dashboard login of make-acl.sh, over TLS, with its user name as client id (its default, which
/// the plugin requires), it reads the aggregator's store layouts and status; a wrong password is
/// shown as refused rather than a blank page.
@Suite("Deployment: the dashboard's login", .serialized, .hangLimit)
struct DashboardRoleTests {
    static func json(_ reply: HTTPProbe.Reply) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any] else {
            throw HTTPProbe.Failure(description: "not a JSON object: \(reply.text.prefix(300))")
        }
        return object
    }

    @Test("a dashboard login reads the layouts and statuses over TLS; the aggregator may publish its layouts")
    func dashboardRole() async throws {
        let binaries = TestPaths.inPackage(".build/debug")
        try await withShippedBroker("central.conf", users: ["--aggregator", "agg-1", "--dashboard", "dash"]) { central in
            let directory = central.broker.directory
            let aggregator = try ChildProcess(executable: binaries.appendingPathComponent("beacon-aggregator").path, arguments: [
                "run", "--config", TestPaths.inPackage("config/chain.example.json").path, "--id", "agg-1", "--host", "127.0.0.1",
                "--port", "\(central.port)", "--username", "agg-1", "--password-file", "\(central.credentials)/passwords/agg-1",
                "--status-interval", "0.5",
            ], outputFile: "\(directory)/aggregator.log")
            let port = try Broker.unusedPort()
            let dashboard = try ChildProcess(executable: binaries.appendingPathComponent("beacon-dashboard").path, arguments: [
                "--host", "127.0.0.1", "--port", "\(central.tlsPort)", "--tls-ca", central.caFile, "--username", "dash",
                "--password-file", "\(central.credentials)/passwords/dash", "--listen", "127.0.0.1:\(port)", "--no-login",
            ], outputFile: "\(directory)/dashboard.log")
            try "wrong\n".write(toFile: "\(directory)/wrong-password", atomically: false, encoding: .utf8)
            let refusedPort = try Broker.unusedPort()
            let refused = try ChildProcess(executable: binaries.appendingPathComponent("beacon-dashboard").path, arguments: [
                "--host", "127.0.0.1", "--port", "\(central.tlsPort)", "--tls-ca", central.caFile, "--username", "dash",
                "--password-file", "\(directory)/wrong-password", "--client-id", "dash", "--listen", "127.0.0.1:\(refusedPort)", "--no-login",
            ], outputFile: "\(directory)/refused.log")
            defer { for process in [refused, dashboard, aggregator] { process.send(SIGKILL) } }
            let http = HTTPProbe(port: port)
            let explain = { "dashboard: \((try? String(contentsOfFile: "\(directory)/dashboard.log", encoding: .utf8)) ?? "")" }
            let stores = try await pollAsync("the example chain's stores on the dashboard", explain: explain) {
                let stores = try Self.json(try await http.get("/api/stores"))["stores"] as? [[String: Any]] ?? []
                return stores.count == 2 && stores.allSatisfy({ $0["has_layout"] as? Bool == true }) ? stores : nil
            }
            #expect(stores.map { $0["major"] as? Int } == [12, 13])
            let aggregators = try await pollAsync("agg-1's status on the dashboard", explain: explain) {
                let health = try Self.json(try await http.get("/api/health"))
                let list = health["aggregators"] as? [[String: Any]] ?? []
                return (health["broker"] as? [String: Any])?["state"] as? String == "connected" && !list.isEmpty ? list : nil
            }
            #expect(aggregators.first?["id"] as? String == "agg-1" && aggregators.first?["state"] as? String == "online")
            #expect(aggregators.first?["dropped_publishes"] as? Int == 0, "the broker refused some of the aggregator's publishes")
            #expect(central.connections(as: "dash") >= 1)

            let state = try await pollAsync("the refused login on the other dashboard") {
                let health = try Self.json(try await HTTPProbe(port: refusedPort).get("/api/health"))
                let broker = health["broker"] as? [String: Any]
                return broker?["state"] as? String == "refused" ? broker : nil
            }
            #expect((state["detail"] as? String)?.isEmpty == false)
        }
    }
}
