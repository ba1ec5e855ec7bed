import BeaconMQTT
import BrokerHarness
import Foundation
import TestSupport
import Testing

/// The checks docs/DEPLOYMENT.md gives (`mosquitto_sub … -i check -u check …`), run as written
/// against the shipped central broker: the monitor login (make-acl.sh --monitor) sees the gateway
/// and aggregator statuses without displacing a running dashboard (each login is bound to one
/// client id, so checking as the dashboard would kick it), and may publish nothing.
@Suite("Deployment: the documented checks", .serialized, .hangLimit)
struct CheckLoginTests {
    static let users = ["--gateway", "gw-12-1a:12", "--aggregator", "agg-1", "--dashboard", "dash", "--monitor", "check"]

    /// Every `mosquitto_sub` command of docs/DEPLOYMENT.md that logs in as `check`, continuation
    /// lines joined.
    static func documentedChecks() throws -> [String] {
        let text = try String(contentsOf: TestPaths.inPackage("docs/DEPLOYMENT.md"), encoding: .utf8)
        let joined = text.replacingOccurrences(of: "\\\n", with: " ")
        return joined.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { $0.hasPrefix("mosquitto_sub ") && $0.contains(" -u check ") }
    }

    /// `command` pointed at `central`: its host, TLS port and credentials in place of the guide's.
    static func localized(_ command: String, _ central: ShippedBroker) throws -> String {
        var words = command
        for (pattern, replacement) in [
            (#"-h \S+"#, "-h 127.0.0.1"),
            (#"-p 8883"#, "-p \(central.tlsPort)"),
            (#"--cafile \S+/ca\.crt"#, "--cafile \(central.caFile)"),
            (#"\$\(cat \S+/passwords/check\)"#, "$(cat \(central.credentials)/passwords/check)"),
        ] {
            let regex = try NSRegularExpression(pattern: pattern)
            let range = NSRange(words.startIndex..., in: words)
            #expect(regex.firstMatch(in: words, range: range) != nil, "the documented check has no \(pattern): \(command)")
            words = regex.stringByReplacingMatches(in: words, range: range, withTemplate: NSRegularExpression.escapedTemplate(for: replacement))
        }
        return words
    }

    @Test("each documented check sees the statuses over TLS and leaves the running dashboard connected")
    func documentedChecks() async throws {
        let checks = try Self.documentedChecks()
        try #require(checks.count >= 2, "DEPLOYMENT.md's checks (steps 1.2 and 2.5) log in as check: \(checks)")
        try await withShippedBroker("central.conf", users: Self.users) { central in
            let dashboard = central.client("dash", id: "dash")
            try await dashboard.connect()
            let gateway = central.client("gw-12-1a", id: "gw-12-1a")
            try await gateway.connect()
            try await gateway.publish(to: "beaconnet/gateways/gw-12-1a/status", payload: Array(#"{"v":1,"gw":"gw-12-1a","state":"online"}"#.utf8),
                                      qos: .atLeastOnce, retain: true)
            let aggregator = central.client("agg-1-out", id: "beacon-aggregator-agg-1-out")
            try await aggregator.connect()
            try await aggregator.publish(to: "beaconnet/aggregators/agg-1/status", payload: Array(#"{"v":1,"id":"agg-1","state":"online"}"#.utf8),
                                         qos: .atLeastOnce, retain: true)
            for (index, check) in checks.enumerated() {
                let output = "\(central.broker.directory)/check-\(index).out"
                let process = try ChildProcess(executable: "/bin/bash", arguments: ["-c", "exec " + (try Self.localized(check, central))],
                                               outputFile: output)
                defer { process.send(SIGKILL) }
                let seen = { (try? String(contentsOfFile: output, encoding: .utf8)) ?? "" }
                try await pollUntil("the gateway's status in the check's output", explain: { "\(check)\n\(seen())\n\(central.log.suffix(1500))" }) {
                    seen().contains("beaconnet/gateways/gw-12-1a/status {\"v\":1,\"gw\":\"gw-12-1a\",\"state\":\"online\"}")
                }
                if check.contains("'beaconnet/#'") { #expect(seen().contains("beaconnet/aggregators/agg-1/status"), "\(seen())") }
                process.send(SIGTERM)
                _ = await process.waitForExit(timeout: readinessLimit)
                #expect(dashboard.isConnected, "the check displaced the dashboard: \(central.log.suffix(1500))")
            }
            #expect(!central.log.contains("Client dash already connected"), "\(central.log.suffix(1500))")

            // The monitor may not publish: a forged status never reaches a reader of statuses.
            let reader = try await Watcher.start(central.client("agg-1", id: "beacon-aggregator-agg-1"), filters: ["beaconnet/gateways/+/status"])
            try await pollUntil("the retained status at the reader") { !reader.received.isEmpty }
            let monitor = central.client("check", id: "check")
            try await monitor.connect()
            try? await monitor.publish(to: "beaconnet/gateways/gw-12-1a/status", payload: Array("forged".utf8), qos: .atLeastOnce, retain: false)
            try await gateway.publish(to: "beaconnet/gateways/gw-12-1a/status", payload: Array("after".utf8), qos: .atLeastOnce, retain: false)
            try await pollUntil("the gateway's next status at the reader") { reader.received.count >= 2 }
            #expect(reader.received.map { String(decoding: $0.payload, as: UTF8.self) }.allSatisfy { $0 != "forged" })

            // The control: checking as the dashboard's login is what displaces it.
            let displacing = try ChildProcess(executable: "/usr/bin/mosquitto_sub", arguments: [
                "-h", "127.0.0.1", "-p", "\(central.tlsPort)", "--cafile", central.caFile, "-i", "dash", "-u", "dash",
                "-P", try central.password("dash"), "-t", "beaconnet/#",
            ], outputFile: "\(central.broker.directory)/displacing.out")
            defer { displacing.send(SIGKILL) }
            try await pollUntil("the dashboard displaced by a check as dash") { !dashboard.isConnected }
            for client in [monitor, aggregator, gateway, dashboard] { await client.disconnect() }
            await reader.stop()
        }
    }
}
