import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import TestSupport
import Testing

/// A shard's host lost under load, as docs/SCALING.md lays a shard out: the shard's broker and
/// its primary aggregator on one host, a standby broker that pulls the shard's sightings over
/// the shipped bridge and a standby aggregator (`--standby-for`) reading it, the store's bridge
/// naming the shard and then its standby (mosquitto's address list), one output hub. The shard's
/// broker stops and the primary is killed (`kill -9`) while the simulator publishes: the store's
/// bridge moves to the standby broker, the primary's Last Will reaches the hub, the standby takes
/// the stores over and decides them; then both come back, the standby hands the stores back and
/// the primary goes on. The primary then freezes (SIGSTOP): its status goes stale, the standby
/// takes over again, and the resumed primary stops deciding, starts again and takes the stores
/// back; then it is restarted as in maintenance (SIGTERM), and the standby serves meanwhile. On
/// the hub no device enters or leaves a region twice in a row (events de-duplicated by
/// device, store and `seq`, as WIRE.md tells consumers) and no such key names two different
/// transitions; the figures against the truth are printed.
/// In the chain-scale suite, whose tests run one at a time: each is a whole central tier.
extension ShardedChainTests {

    @Test func aStandbyTakesOverAndHandsBack() async throws {
        let aggregatorBinary = try #require(TestPaths.builtExecutable("beacon-aggregator"), "build the package first (swift build --build-tests)")
        let simBinary = try #require(TestPaths.builtExecutable("beacon-sim"), "build the package first (swift build --build-tests)")
        try await RunningParts.with { parts in
            let shard = try await Broker.start(BrokerConfiguration(extraConfiguration: ["max_queued_messages 200000"]))
            parts.brokers.append(shard)
            // The standby broker pulls every sighting and gateway status from the shard while it
            // lives (the shipped shard-standby.conf), so that its aggregator has them whichever
            // broker the stores reach.
            let standbyShard = try await Broker.start(BrokerConfiguration(extraConfiguration: ["max_queued_messages 200000"] + Self.pullLines(from: shard.port)))
            parts.brokers.append(standbyShard)
            let hub = try await Broker.start(BrokerConfiguration(persistence: true, extraConfiguration: ["max_queued_messages 200000"]))
            parts.brokers.append(hub)
            let bridge = try BridgeOutageTests.bridgeLines(port: shard.port, password: "unused").compactMap { line -> String? in
                if line.hasPrefix("address ") { return "address 127.0.0.1:\(shard.port) 127.0.0.1:\(standbyShard.port)" }
                if line.hasPrefix("remote_username ") || line.hasPrefix("remote_password ") { return nil }
                if line.hasPrefix("restart_timeout ") { return "restart_timeout 1 2" }
                return line
            }
            let storeBroker = try await Broker.start(BrokerConfiguration(persistence: true, extraConfiguration: ["max_queued_messages 200000"] + bridge))
            parts.brokers.append(storeBroker)
            try await untilBridged(store: storeBroker, central: shard)
            try await untilBridged(store: storeBroker, central: standbyShard)

            let onHub = try await Self.hubConsumer(hub)
            parts.watchers.append(onHub)

            let directory = try TestDirectory.make("standby-failover").path
            try await runCommand(simBinary, ["chain"], output: "\(directory)/chain.json")
            func aggregator(_ id: String, input: Broker, log: String, extra: [String] = []) throws -> ChildProcess {
                try ChildProcess(executable: aggregatorBinary, arguments: [
                    "run", "--config", "\(directory)/chain.json", "--id", id, "--event-time", "--port", "\(input.port)",
                    "--output-port", "\(hub.port)", "--status-interval", "1", "--snapshot", "\(directory)/\(id).snapshot",
                    "--snapshot-interval", "1",
                ] + extra, outputFile: "\(directory)/\(log).log")
            }
            var primary = try aggregator("agg-1", input: shard, log: "agg-1")
            parts.processes.append(primary)
            let standbyMetrics = try Broker.unusedPort()
            let standby = try aggregator("agg-1b", input: standbyShard, log: "agg-1b", extra: [
                "--standby-for", "agg-1", "--standby-stale", "5", "--metrics", "127.0.0.1:\(standbyMetrics)",
            ])
            parts.processes.append(standby)
            let logs = { ["agg-1", "agg-1b", "agg-1-again", "agg-1-third", "sim"].map { name in
                "--- \(name)\n" + String(((try? String(contentsOfFile: "\(directory)/\(name).log", encoding: .utf8)) ?? "").suffix(2000))
            }.joined(separator: "\n") }
            try await pollUntil("the primary serving and the standby standing by, on the hub", explain: logs) {
                let latest = Self.latestStatuses(onHub)
                return latest["agg-1"]?.state == .online && latest["agg-1"]?.serving == nil
                    && latest["agg-1b"]?.state == .online && latest["agg-1b"]?.serving == false && latest["agg-1b"]?.standbyFor?.rawValue == "agg-1"
            }

            let sim = try ChildProcess(executable: simBinary, arguments: [
                "run", "--host", "127.0.0.1", "--port", "\(storeBroker.port)", "--rate", "20", "--duration", "900", "--seed", "21",
                "--truth", "\(directory)/truth.txt", "--arrival-interval", "6",
            ], outputFile: "\(directory)/sim.log")
            parts.processes.append(sim)
            try await pollUntil("the primary's events on the hub", explain: logs) { Self.events(onHub).count >= 1000 }

            // The shard's host is lost: its broker and its aggregator at once.
            let before = Self.events(onHub).count
            primary.send(SIGKILL)
            try await shard.stop()
            let lost = ContinuousClock.now
            try await pollUntil("the standby serving after the primary's Last Will", explain: logs) {
                Self.latestStatuses(onHub)["agg-1b"]?.serving == true
            }
            print("standby failover: the standby served \(ContinuousClock.now - lost) after the shard's host was lost")
            #expect(Self.latestStatuses(onHub)["agg-1"]?.state == .offline, "the primary's Last Will is its status")
            try await pollUntil("the standby's own events on the hub", explain: { "events \(Self.events(onHub).count), before \(before)\n\(logs())" }) {
                Self.events(onHub).count >= before + 1000
            }
            #expect(sim.isRunning, "the host comes back while the simulator publishes")

            // The host comes back: its broker, then its aggregator; the standby hands back.
            try await shard.start()
            primary = try aggregator("agg-1", input: shard, log: "agg-1-again")
            parts.processes.append(primary)
            let returned = ContinuousClock.now
            try await pollUntil("the standby standing by again and the primary serving", explain: logs) {
                let latest = Self.latestStatuses(onHub)
                return latest["agg-1b"]?.serving == false && latest["agg-1"]?.state == .online && latest["agg-1"]?.serving == nil
            }
            print("standby failover: the primary served again \(ContinuousClock.now - returned) after it was restarted")

            // The primary freezes: its status goes stale, the standby takes over; when it resumes,
            // it sees the standby serving and starts again to take the stores back.
            let frozenAt = Self.latestStatuses(onHub)["agg-1"]?.time ?? 0
            primary.send(SIGSTOP)
            try await pollUntil("the standby serving after the primary's status went stale", explain: logs) {
                Self.latestStatuses(onHub)["agg-1b"]?.serving == true
            }
            primary.send(SIGCONT)
            try await pollUntil("the resumed primary serving again after a hand-back", explain: logs) {
                let latest = Self.latestStatuses(onHub)
                return latest["agg-1b"]?.serving == false && latest["agg-1"]?.state == .online && latest["agg-1"]?.serving == nil
                    && (latest["agg-1"]?.time ?? 0) > frozenAt
            }
            let again = try String(contentsOfFile: "\(directory)/agg-1-again.log", encoding: .utf8)
            #expect(again.contains("starting again to take the stores back") && again.contains("waiting for agg-1b to hand back"),
                    "the resumed primary took the stores back through the hand-back")

            // A routine restart: SIGTERM says offline, the standby serves at once, the primary
            // returns and takes the stores back.
            primary.send(SIGTERM)
            #expect(await primary.waitForExit(timeout: readinessLimit) && primary.exitStatus == 0, "the primary stops cleanly\n\(logs())")
            try await pollUntil("the standby serving after the primary's shutdown", explain: logs) {
                Self.latestStatuses(onHub)["agg-1b"]?.serving == true
            }
            primary = try aggregator("agg-1", input: shard, log: "agg-1-third")
            parts.processes.append(primary)
            try await pollUntil("the restarted primary serving again after a hand-back", explain: logs) {
                let latest = Self.latestStatuses(onHub)
                return latest["agg-1b"]?.serving == false && latest["agg-1"]?.state == .online && latest["agg-1"]?.serving == nil
            }
            let handedBack = Self.events(onHub).count
            #expect(await sim.waitForExit(timeout: readinessLimit) && sim.exitStatus == 0, "the simulator did not finish cleanly\n\(logs())")
            #expect(Self.events(onHub).count > handedBack, "the returned primary decides again")

            // Settled: the same count twice, two seconds apart.
            var last = -1, settled = 0
            try await pollUntil("the events settled on the hub", every: .seconds(2)) {
                let count = Self.events(onHub).count
                settled = count == last ? settled + 1 : 0
                last = count
                return settled >= 1
            }
            let delivered = Self.events(onHub)
            let byStandby = MetricsText.sum(try await HTTPProbe(port: standbyMetrics).get("/metrics").text, "beaconnet_aggregator_transitions_total") ?? 0
            print("standby failover: \(delivered.count) distinct events on the hub, \(Int(byStandby)) of them decided by the standby")
            #expect(byStandby > 0, "the standby decided while it served")
            // Per device and region, in the device's event order: enter, exit, enter, … never two of a kind in a row.
            for (key, kinds) in Self.transitionsByRegion(delivered) {
                #expect(zip(kinds, kinds.dropFirst()).allSatisfy { $0 != $1 }, "\(key): \(kinds)")
            }
            // Two instances deciding the same device at once would give one (device, store, seq)
            // two different transitions: the de-duplication above would hide one of them.
            var said: [String: String] = [:]
            for message in onHub.received where message.topic.hasPrefix("beaconnet/events/") {
                guard let event = try? RegionEvent.decode(message.payload) else { continue }
                let key = "\(event.device) \(event.region.store) \(event.sequence)", what = "\(event.kind) \(event.region)"
                #expect(said[key, default: what] == what, "\(key): \(said[key] ?? "") and \(what)")
                said[key] = what
            }
            let recording = onHub.received.filter { $0.topic.hasPrefix("beaconnet/events/") }
                .map { "\($0.topic) \(String(decoding: $0.payload, as: UTF8.self))" }.joined(separator: "\n")
            try recording.write(toFile: "\(directory)/events.txt", atomically: true, encoding: .utf8)
            try await runCommand(simBinary, ["evaluate", "--truth", "\(directory)/truth.txt", "--events", "\(directory)/events.txt", "--wide"],
                                 output: "\(directory)/score.txt")
            print("standby failover, scored against the truth:\n\(try String(contentsOfFile: "\(directory)/score.txt", encoding: .utf8))")

            // Stopped while it stands by, the standby says so.
            standby.send(SIGTERM)
            #expect(await standby.waitForExit(timeout: readinessLimit) && standby.exitStatus == 0, "the standby stops cleanly\n\(logs())")
            try await pollUntil("the standby's offline status", explain: logs) { Self.latestStatuses(onHub)["agg-1b"]?.state == .offline }
        }
    }

    /// The shipped shard-standby.conf bridge, pulling from the shard at `port` (anonymous here,
    /// and quick to retry).
    static func pullLines(from port: Int) throws -> [String] {
        let text = try String(contentsOf: BridgeOutageTests.root.appendingPathComponent("deploy/mosquitto/shard-standby.conf"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init).compactMap { line in
            if line.hasPrefix("#") || line.hasPrefix("bridge_cafile") || line.hasPrefix("remote_username ") || line.hasPrefix("remote_password ") { return nil }
            if line.hasPrefix("address ") { return "address 127.0.0.1:\(port)" }
            if line.hasPrefix("restart_timeout ") { return "restart_timeout 1 2" }
            return line
        }
    }

    /// Each device's transitions per region, in its event order (`seq`).
    static func transitionsByRegion(_ events: [RegionEvent]) -> [String: [RegionTransition]] {
        Dictionary(grouping: events) { (event: RegionEvent) in "\(event.device) \(event.region)" }
            .mapValues { $0.sorted { $0.sequence < $1.sequence }.map(\.kind) }
    }

    /// Each instance's last status the hub's consumer received.
    static func latestStatuses(_ watcher: Watcher) -> [String: AggregatorStatus] {
        var latest: [String: AggregatorStatus] = [:]
        for message in watcher.received where message.topic.hasPrefix("beaconnet/aggregators/") {
            guard let status = try? AggregatorStatus.decode(message.payload) else { continue }
            latest[status.aggregator.rawValue] = status
        }
        return latest
    }
}
