import BrokerHarness
import Foundation
import TestSupport

/// Runs the real programs with `--metrics` against a real broker and scrapes them.
enum Scrape {
    /// Debian's promtool (`prometheus` package), where installed.
    static let promtool: String? = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// The package's executable `name` as `swift build --build-tests` left it.
    static func binary(_ name: String) throws -> String {
        guard let path = TestPaths.builtExecutable(name) else {
            throw HTTPProbe.Failure(description: "\(name) is not built: run swift build --build-tests first")
        }
        return path
    }

    /// `beacon-aggregator run --metrics` deciding the simulator's chain, with one message it must
    /// reject; returns `/metrics` once sightings, events, a reject and per-gateway batches show.
    static func aggregator() async throws -> String {
        try await withBroker { broker in
            let directory = try TestDirectory.make("metrics-aggregator").path
            try await runCommand(try binary("beacon-sim"), ["chain"], output: "\(directory)/chain.json")
            let port = try Broker.unusedPort()
            let aggregator = try ChildProcess(executable: try binary("beacon-aggregator"), arguments: [
                "run", "--config", "\(directory)/chain.json", "--port", "\(broker.port)", "--id", "agg-metrics", "--event-time",
                "--status-interval", "0.5", "--metrics", "127.0.0.1:\(port)",
            ], outputFile: "\(directory)/aggregator.log")
            let sim = try ChildProcess(executable: try binary("beacon-sim"), arguments: [
                "run", "--host", "127.0.0.1", "--port", "\(broker.port)", "--rate", "10", "--duration", "3000", "--truth", "\(directory)/truth.txt",
            ], outputFile: "\(directory)/sim.log")
            defer {
                for process in [sim, aggregator] { process.send(SIGKILL) }
            }
            let http = HTTPProbe(port: port)
            _ = try await pollAsync("the aggregator's metrics endpoint") { try await http.get("/metrics").status == 200 ? true : nil }
            try await runCommand("/usr/bin/mosquitto_pub", ["-h", "127.0.0.1", "-p", "\(broker.port)", "-q", "1",
                                                           "-t", "beaconnet/sightings/101/gw-101-1a", "-m", "{not json"])
            return try await pollAsync("sightings, events, a reject and per-gateway batches in /metrics", every: .milliseconds(250), explain: {
                (try? String(contentsOfFile: "\(directory)/aggregator.log", encoding: .utf8)).map { String($0.suffix(2000)) } ?? ""
            }) {
                let text = try await http.get("/metrics").text
                let ready = (MetricsText.value(text, "beaconnet_aggregator_sightings_total") ?? 0) > 0
                    && (MetricsText.value(text, "beaconnet_aggregator_transitions_total") ?? 0) > 0
                    && (MetricsText.value(text, "beaconnet_aggregator_rejects_total", [#"reason="invalid_json""#]) ?? 0) > 0
                    && (MetricsText.value(text, "beaconnet_aggregator_gateway_batches_total", [#"gateway="gw-101-1a""#]) ?? 0) > 0
                return ready ? text : nil
            }
        }
    }

    /// `beacon-edge --metrics` replaying a capture to a real broker; returns `/metrics` once
    /// published batches show.
    static func edge() async throws -> String {
        try await withBroker { broker in
            let directory = try TestDirectory.make("metrics-edge").path
            let capture = "\(directory)/capture.btsnoop"
            try SyntheticIBeaconCapture.write(to: capture, seconds: 120)
            let port = try Broker.unusedPort()
            let edge = try ChildProcess(executable: try binary("beacon-edge"), arguments: [
                "--gateway", "gw-metrics", "--store", "1", "--section", "1", "--broker-host", "127.0.0.1", "--broker-port", "\(broker.port)",
                "--allow-all", "--batch-window-ms", "200", "--replay", capture, "--speed", "1", "--rebase-time", "--metrics", "127.0.0.1:\(port)",
            ], outputFile: "\(directory)/edge.log")
            defer { edge.send(SIGKILL) }
            let http = HTTPProbe(port: port)
            return try await pollAsync("published batches in the edge's /metrics", every: .milliseconds(200), explain: {
                (try? String(contentsOfFile: "\(directory)/edge.log", encoding: .utf8)).map { String($0.suffix(2000)) } ?? ""
            }) {
                let text = try await http.get("/metrics").text
                return (MetricsText.value(text, "beaconnet_edge_batches_total", [#"outcome="published""#]) ?? 0) >= 2
                    && (MetricsText.value(text, "beaconnet_edge_reports_total") ?? 0) > 0 ? text : nil
            }
        }
    }

    /// Runs `promtool check metrics` on `text` (kept in `.build/test-artifacts/metrics-<name>.txt`);
    /// throws with promtool's complaints.
    static func promtoolCheck(_ text: String, name: String, promtool: String) async throws {
        let directory = TestPaths.inPackage(".build/test-artifacts").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let file = "\(directory)/metrics-\(name).txt"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        try await runCommand("/bin/sh", ["-c", #""$0" check metrics < "$1""#, promtool, file])
    }
}
