@testable import BeaconDashboard
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The real `beacon-dashboard` with a small connection cap and a short idle timeout, flooded
/// with three times as many slow-header clients: it stops accepting at the cap (its descriptors
/// stay bounded), says so in its log and in `/api/health`, times the slow clients out, and still
/// answers a page's request; an open event stream is not an idle connection.
@Suite("Dashboard: the listener under a slow-client flood", .serialized, .timeLimit(.minutes(10)))
struct DashboardFloodTests {
    static let cap = 8
    static let idleSeconds = 2

    @Test("cap holds, counted and logged; slow clients timed out; requests still answered; streams kept")
    func flood() async throws {
        let directory = try TestDirectory.make("dashboard-flood").path
        let httpPort = try Broker.unusedPort(), brokerPort = try Broker.unusedPort()
        let dashboard = try ChildProcess(executable: try DashboardStack.binary("beacon-dashboard"), arguments: [
            "--port", "\(brokerPort)", "--listen", "127.0.0.1:\(httpPort)", "--no-login",
            "--max-connections", "\(Self.cap)", "--idle-timeout", "\(Self.idleSeconds)",
        ], outputFile: "\(directory)/dashboard.log")
        defer { dashboard.send(SIGKILL) }
        let log = { (try? String(contentsOfFile: "\(directory)/dashboard.log", encoding: .utf8)) ?? "" }
        let http = HTTPProbe(port: httpPort)
        _ = try await pollAsync("the dashboard", within: .seconds(300)) { try await http.get("/api/health").status == 200 ? true : nil }

        // A page's event stream outlives the idle timeout: the broker retries every 2 s, each one an event.
        let stream = try await http.stream("/api/stream", timeout: .seconds(300)) { $0.components(separatedBy: "event: broker").count > 3 }
        #expect(stream.contains("retry: 2000"))

        let baseline = try #require(ProcessList.openDescriptors(of: dashboard.pid))
        let count = Self.cap * 3
        let most = try await SlowClientFlood.during(port: httpPort, count: count, every: .milliseconds(500)) { flood in
            var most = baseline
            let watch = { most = max(most, ProcessList.openDescriptors(of: dashboard.pid) ?? most) }
            _ = try await pollAsync("the cap line in the dashboard's log", within: .seconds(300), explain: { String(log().suffix(2000)) }) {
                watch()
                return log().contains("HTTP listener at its connection cap") ? true : nil
            }
            // Asked while slow clients still hold connections (they may all be timed out by the
            // time a slow machine answers).
            let drippingWhenAsked = flood.dripping
            let health = try await http.getJSON("/api/health", as: HealthView.self, timeout: .seconds(300))
            #expect(health.status == 200 && drippingWhenAsked > 0, "a page's request is answered while the flood goes on")
            #expect(health.value.server.maxConnections == Self.cap && health.value.server.connectionCapReached >= 1)
            _ = try await pollAsync("every slow client to be timed out", within: .seconds(300), every: .milliseconds(200), explain: {
                "\(flood.closedByServer) of \(count) closed by the dashboard"
            }) {
                watch()
                return flood.closedByServer == count ? true : nil
            }
            return most
        }
        // NIO may accept a few more in the read cycle that reaches the cap; the broker retries take one.
        #expect(most - baseline <= Self.cap + 4 + 2, "descriptors: \(baseline) before, \(most) at most")
        #expect(try await http.get("/").status == 200)
    }
}
