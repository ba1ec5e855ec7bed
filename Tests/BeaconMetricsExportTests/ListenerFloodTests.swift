@testable import BeaconMetricsExport
import BrokerHarness
import Foundation
import Logging
import ServiceLifecycle
import TestSupport
import Testing

/// A slow-header flood of more connections than the cap against the `--metrics` listener: it
/// stops accepting at the cap (a few more may come in with the accept cycle that reached it),
/// counts and logs that, times the slow clients out, and still answers a normal request. Against
/// the real aggregator, its MQTT side keeps deciding meanwhile.
@Suite("HTTP listeners under a slow-client flood", .serialized, .timeLimit(.minutes(10)))
struct ListenerFloodTests {
    /// Connections NIO may accept in the read cycle that reaches the cap (its `maxMessagesPerRead`).
    static let acceptCycle = 4

    @Test("MetricsExportService: cap reached and counted, slow clients timed out, /metrics still answered")
    func inProcess() async throws {
        let export = PrometheusExport(help: [:])
        let port = try Broker.unusedPort()
        let limits = HTTPListenerLimits(maxConnections: 8, idleTimeout: .seconds(2))
        let logger = Logger(label: "test.metrics-flood")
        let service = MetricsExportService(endpoint: try ListenAddress(host: "127.0.0.1", port: port), export: export, limits: limits, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [service], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            let mostOpen: Int
            do {
                mostOpen = try await Self.flood(port: port, export: export)
            } catch {
                tasks.cancelAll()
                throw error
            }
            #expect(mostOpen >= limits.maxConnections && mostOpen <= limits.maxConnections + Self.acceptCycle)
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
    }

    /// Floods the in-process listener on `port` with 24 slow clients; returns the most
    /// connections `export` showed open.
    static func flood(port: Int, export: PrometheusExport) async throws -> Int {
        let http = HTTPProbe(port: port)
        _ = try await pollAsync("the metrics listener", within: .seconds(300)) { try await http.get("/metrics").status == 200 ? true : nil }
        return try await SlowClientFlood.during(port: port, count: 24, every: .milliseconds(500)) { flood in
            var mostOpen = 0
            func watch() -> String {
                let text = export.exposition()
                mostOpen = max(mostOpen, Int(MetricsText.value(text, "beaconnet_http_connections", [#"listener="metrics""#]) ?? 0))
                return text
            }
            _ = try await pollAsync("the cap to be reached and counted", within: .seconds(300)) {
                (MetricsText.value(watch(), "beaconnet_http_connection_cap_reached_total", [#"listener="metrics""#]) ?? 0) >= 1 ? true : nil
            }
            // Asked while slow clients still hold connections (they may all be timed out by the
            // time the request, queued behind them, is answered).
            let drippingWhenAsked = flood.dripping
            let answer = try await http.get("/metrics", timeout: .seconds(300))
            #expect(answer.status == 200 && drippingWhenAsked > 0, "a normal request is answered while the flood goes on")
            _ = try await pollAsync("every slow client to be timed out", within: .seconds(300), every: .milliseconds(200), explain: {
                "\(flood.closedByServer) of 24 closed by the server"
            }) {
                _ = watch()
                return flood.closedByServer == 24 ? true : nil
            }
            return mostOpen
        }
    }

    @Test("beacon-aggregator --metrics: the process's descriptors stay bounded, the cap is logged, events keep coming")
    func aggregator() async throws {
        try await withBroker { broker in
            let directory = try TestDirectory.make("metrics-flood").path
            try await runCommand(try Scrape.binary("beacon-sim"), ["chain"], output: "\(directory)/chain.json")
            let port = try Broker.unusedPort()
            let aggregator = try ChildProcess(executable: try Scrape.binary("beacon-aggregator"), arguments: [
                "run", "--config", "\(directory)/chain.json", "--port", "\(broker.port)", "--id", "agg-flood", "--event-time",
                "--metrics", "127.0.0.1:\(port)",
            ], outputFile: "\(directory)/aggregator.log")
            let sim = try ChildProcess(executable: try Scrape.binary("beacon-sim"), arguments: [
                "run", "--host", "127.0.0.1", "--port", "\(broker.port)", "--rate", "10", "--duration", "3000", "--truth", "\(directory)/truth.txt",
            ], outputFile: "\(directory)/sim.log")
            defer { for process in [sim, aggregator] { process.send(SIGKILL) } }
            let log = { (try? String(contentsOfFile: "\(directory)/aggregator.log", encoding: .utf8)) ?? "" }
            let http = HTTPProbe(port: port)
            _ = try await pollAsync("the aggregator deciding", within: .seconds(300), explain: { String(log().suffix(2000)) }) {
                (MetricsText.value(try await http.get("/metrics").text, "beaconnet_aggregator_transitions_total") ?? 0) > 0 ? true : nil
            }
            let baseline = try #require(ProcessList.openDescriptors(of: aggregator.pid))
            let cap = HTTPListenerLimits.metrics.maxConnections
            let count = cap + cap / 2
            let mostDescriptors = try await SlowClientFlood.during(port: port, count: count) { flood in
                var most = baseline
                let watch = { most = max(most, ProcessList.openDescriptors(of: aggregator.pid) ?? most) }
                _ = try await pollAsync("the cap line in the aggregator's log", within: .seconds(300), explain: { String(log().suffix(2000)) }) {
                    watch()
                    return log().contains("HTTP listener at its connection cap") ? true : nil
                }
                // The MQTT side decides while the listener is full: enter and exit events keep coming.
                let events = try ChildProcess(executable: "/usr/bin/mosquitto_sub", arguments: [
                    "-h", "127.0.0.1", "-p", "\(broker.port)", "-t", "beaconnet/events/#", "-C", "3",
                ], outputFile: "\(directory)/events.txt")
                defer { events.send(SIGKILL) }
                #expect(await events.waitForExit(timeout: .seconds(300)) && events.exitStatus == 0, "three events during the flood")
                watch()
                let drippingWhenAsked = flood.dripping
                let answer = try await http.get("/metrics", timeout: .seconds(300))
                #expect(answer.status == 200 && drippingWhenAsked > 0, "a normal request is answered while the flood goes on")
                #expect((MetricsText.value(answer.text, "beaconnet_http_connection_cap_reached_total", [#"listener="metrics""#]) ?? 0) >= 1)
                _ = try await pollAsync("every slow client to be timed out", within: .seconds(300), every: .milliseconds(250), explain: {
                    "\(flood.closedByServer) of \(count) closed by the aggregator"
                }) {
                    watch()
                    return flood.closedByServer == count ? true : nil
                }
                return most
            }
            // Beyond the listener's connections, a few descriptors may come and go (a snapshot, a log).
            #expect(mostDescriptors - baseline <= cap + Self.acceptCycle + 8, "descriptors: \(baseline) before, \(mostDescriptors) at most")
            #expect(aggregator.isRunning)
        }
    }
}
