import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import Synchronization
import TestSupport
import Testing

/// Restarts under traffic in the deployed shape: simulated gateways publish to a store broker,
/// the shipped `store.conf` bridge forwards to a central broker, the real `beacon-aggregator`
/// decides there. Every batch must be processed or counted, and no event may be invented.
@Suite("Deployment: restarts under traffic", .serialized, .hangLimit)
struct RestartTests {
    static let root = ACLTests.root
    static let binaries = root.appendingPathComponent(".build/debug")

    @Test("the aggregator stopped gracefully and then killed -9 mid-stream: every batch processed or counted, no spurious event")
    func aggregatorRestarts() async throws {
        let aggregator = Self.binaries.appendingPathComponent("beacon-aggregator").path
        let sim = Self.binaries.appendingPathComponent("beacon-sim").path
        try #require(FileManager.default.isExecutableFile(atPath: aggregator) && FileManager.default.isExecutableFile(atPath: sim),
                     "build the package first (swift build --build-tests)")
        try await withBroker(BrokerConfiguration(
            users: ["bridge-12": "p-bridge"], allowAnonymous: true, persistence: true,
            extraConfiguration: ["max_queued_messages 200000"])
        ) { central in
            try await withBroker(BrokerConfiguration(
                persistence: true,
                extraConfiguration: ["max_queued_messages 200000"] + (try BridgeOutageTests.bridgeLines(port: central.port, password: "p-bridge")))
            ) { store in
                try await Self.aggregatorRestarts(central: central, store: store, aggregator: aggregator, sim: sim)
            }
        }
    }

    static func aggregatorRestarts(central: Broker, store: Broker, aggregator: String, sim: String) async throws {
        let directory = central.directory
        let chain = directory + "/chain.json"
        try await runCommand(sim, ["chain"], output: chain)
        let snapshot = directory + "/snapshot.jsonl"
        let arguments = ["run", "--config", chain, "--id", "agg-r", "--port", "\(central.port)", "--event-time",
                         "--status-interval", "0.3", "--snapshot", snapshot, "--snapshot-interval", "1"]
        func start(_ n: Int) throws -> ChildProcess {
            try ChildProcess(executable: aggregator, arguments: arguments, outputFile: directory + "/agg\(n).log")
        }
        let recorder = try await Recorder.start(central)
        var instance = try start(1)
        try await recorder.until("the first aggregator online") { $0.aggregator?.state == .online }
        try await untilBridged(store: store, central: central)

        // 240 simulated seconds at 12× real time: about 20 s of traffic.
        let traffic = try ChildProcess(executable: sim, arguments: [
            "run", "--host", "127.0.0.1", "--port", "\(store.port)", "--rate", "12", "--duration", "240", "--seed", "7",
            "--arrival-interval", "6", "--truth", directory + "/truth.jsonl",
        ], outputFile: directory + "/sim.log")

        // 1. A graceful restart (systemctl restart): SIGTERM, then a new process at once.
        try await Task.sleep(for: .seconds(5))
        try await stopGracefully(instance, recorder: recorder, snapshot: snapshot)
        instance = try start(2)
        try await recorder.until("the second aggregator online") { $0.aggregator.map { $0.state == .online && $0.counters.messages != nil } ?? false }

        // 2. A crash: kill -9, two seconds down, restarted.
        try await Task.sleep(for: .seconds(5))
        let (killedAt, afterKill) = try await crash(instance, recorder: recorder, snapshot: snapshot)
        try await Task.sleep(for: .seconds(2))
        recorder.resetStatuses()
        instance = try start(3)
        try await recorder.until("the third aggregator online") { $0.aggregator.map { $0.state == .online && $0.counters.messages != nil } ?? false }
        let downtimeBatches = recorder.batchCount - killedAt

        #expect(await traffic.waitForExit(timeout: readinessLimit), "the simulator did not finish")
        #expect(traffic.exitStatus == 0)
        try await stopAccountingForEveryBatch(instance, recorder: recorder, resumedFrom: afterKill, downtimeBatches: downtimeBatches)
        expectNoInventedTransitions(recorder.events())
        await recorder.stop()
    }

    /// Stops `instance` with SIGTERM and checks its final status: every batch up to its last
    /// snapshot's progress processed, none lost. Forgets the statuses seen, for the next instance.
    static func stopGracefully(_ instance: ChildProcess, recorder: Recorder, snapshot: String) async throws {
        instance.send(SIGTERM)
        #expect(await instance.waitForExit(timeout: readinessLimit), "the aggregator did not stop on SIGTERM")
        // The final status reaches the recorder through the broker after the process has exited.
        try await recorder.until("the first aggregator's final status") { $0.aggregator?.state == .offline }
        let graceful = try #require(recorder.latestStatus(where: { $0.state == .offline }), "no final status from the first aggregator")
        let afterGraceful = try Self.progress(snapshot)
        #expect(graceful.counters.batches == afterGraceful.values.reduce(0) { $0 + $1 + 1 },
                "the first run processed every batch up to its snapshot's progress, none lost: \(graceful.counters)")
        #expect(graceful.counters.loss.isEmpty)
        recorder.resetStatuses()
    }

    /// Checks that `instance`, started after a graceful restart, misses nothing, then kills it
    /// (-9); returns how many batches had been published then, and its last snapshot's progress.
    static func crash(_ instance: ChildProcess, recorder: Recorder, snapshot: String) async throws -> (Int, [String: UInt64]) {
        let secondStatus = try #require(recorder.latestStatus(where: { $0.state == .online }))
        #expect(secondStatus.counters.restartGap.isEmpty && secondStatus.counters.loss.isEmpty,
                "after a graceful restart nothing may be missing: \(secondStatus.counters)")
        instance.send(SIGKILL)
        #expect(await instance.waitForExit(timeout: readinessLimit))
        return (recorder.batchCount, try Self.progress(snapshot))
    }

    /// Batches processed, or counted as a restart gap or as loss.
    static func accounted(_ s: AggregatorStatus) -> UInt64 {
        (s.counters.batches ?? 0) + s.counters.restartGap.values.reduce(0, +) + s.counters.loss.values.reduce(0, +)
    }

    /// Waits for the run resumed from `resumedFrom` (the killed run's last snapshot) to account
    /// for every batch published after it, stops it, and checks its final counters.
    static func stopAccountingForEveryBatch(
        _ instance: ChildProcess, recorder: Recorder, resumedFrom afterKill: [String: UInt64], downtimeBatches: Int
    ) async throws {
        try await recorder.settle()
        let published = recorder.highestSequences()
        let expected = published.reduce(UInt64(0)) { sum, entry in sum + entry.value - (afterKill[entry.key] ?? UInt64.max) }
        try await recorder.until("the third run accounts for \(expected) batches") {
            $0.aggregator.map { accounted($0) >= expected } ?? false
        }
        instance.send(SIGTERM)
        #expect(await instance.waitForExit(timeout: readinessLimit))
        try await recorder.until("the third aggregator's final status") { $0.aggregator?.state == .offline }
        let final = try #require(recorder.latestStatus(where: { $0.state == .offline }))
        let gap = final.counters.restartGap.values.reduce(0, +)
        print("aggregator restarts: \(recorder.batchCount) batches published through the bridge; after kill -9: \(downtimeBatches) published while down, restart gap \(gap) batch(es), loss \(final.counters.loss.values.reduce(0, +)), \(final.counters.batches ?? 0) processed by the third run")

        // Exactly: every batch after the resumed snapshot was processed or counted — none vanished.
        #expect(accounted(final) == expected, "\(final.counters)")
        // The persistent session queued the downtime's traffic: only what the killed run had taken
        // since its last snapshot (1 s) can be in the gap, not the 2+ s it was down.
        #expect(gap < downtimeBatches, "the broker did not queue for the aggregator while it was down")
        #expect(final.counters.loss.isEmpty)
    }

    /// No invented or lost transition: per device and region, enters and exits alternate, and
    /// per-device event numbers only grow, across all three runs. Delivery is at least once: a
    /// run killed after publishing an event but before its state reached the broker or the
    /// snapshot decides that transition again after the restart, with the same per-device `seq`
    /// — a repeat consumers drop by (dev, seq), not a new event. Only such exact repeats are set aside.
    static func expectNoInventedTransitions(_ recorded: [RegionEvent]) {
        var seen = Set<String>()
        var repeats = 0
        let events = recorded.filter { e in
            let fresh = seen.insert("\(e.device) \(e.sequence) \(e.kind) \(e.region)").inserted
            if !fresh { repeats += 1 }
            return fresh
        }
        print("aggregator restarts: \(events.count) events, \(repeats) repeated after the crash with the same seq")
        #expect(events.count > 20, "too little happened to judge: \(events.count) events")
        var inside: [String: Bool] = [:]
        var lastSequence: [DeviceID: UInt64] = [:]
        for event in events {
            let key = "\(event.device) \(event.region)"
            let entering = event.kind == .enter
            #expect(inside[key, default: false] != entering, "\(event.kind) \(event.region) for \(event.device) twice in a row (seq \(event.sequence))")
            inside[key] = entering
            #expect(event.sequence > lastSequence[event.device, default: 0], "event numbers of \(event.device) went back: \(event.sequence)")
            lastSequence[event.device] = event.sequence
        }
    }

    /// Each gateway's progress in the aggregator's snapshot file.
    static func progress(_ path: String) throws -> [String: UInt64] {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var result: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            if let p = try? GatewayProgress.decode(Array(line.utf8)) { result[p.gateway.rawValue] = p.sequence }
        }
        return result
    }
}

/// Everything a central subscriber sees: batches (by gateway and seq), events, aggregator statuses.
final class Recorder: Sendable {
    struct Item: Sendable {
        var aggregator: AggregatorStatus?
        var event: RegionEvent?
    }

    let client: MQTTClient
    let sequences = Mutex<[String: UInt64]>([:])
    let batches = Mutex(0)
    let items = Mutex<[Item]>([])
    let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    static func start(_ broker: Broker) async throws -> Recorder {
        var configuration = MQTTConfiguration(host: broker.host, port: broker.port, clientID: "recorder-\(UInt32.random(in: 0...UInt32.max))")
        configuration.inboundBufferCapacity = 1_000_000
        let client = MQTTClient(configuration: configuration, logger: Logger(label: "test.recorder"))
        try await client.connect()
        let subscription = try await client.subscribe(
            to: ["beaconnet/sightings/#", "beaconnet/events/#", "beaconnet/aggregators/+/status"], qos: .atLeastOnce)
        let recorder = Recorder(client: client)
        let task = Task {
            for await m in subscription {
                if m.topic.hasPrefix("beaconnet/sightings/") {
                    if let b = try? SightingBatch.decode(m.payload) {
                        recorder.batches.withLock { $0 += 1 }
                        recorder.sequences.withLock { $0[b.gateway.rawValue] = max($0[b.gateway.rawValue] ?? 0, b.sequence) }
                    }
                } else if m.topic.hasPrefix("beaconnet/events/") {
                    if let e = try? RegionEvent.decode(m.payload) { recorder.items.withLock { $0.append(Item(event: e)) } }
                } else if let s = try? AggregatorStatus.decode(m.payload) {
                    recorder.items.withLock { $0.append(Item(aggregator: s)) }
                }
            }
        }
        recorder.task.withLock { $0 = task }
        return recorder
    }

    init(client: MQTTClient) { self.client = client }

    var batchCount: Int { batches.withLock { $0 } }

    /// Returns once no batch has arrived for 1.5 s: the bridge may still be forwarding the last ones.
    func settle() async throws {
        var count = batchCount
        while true {
            try await Task.sleep(for: .milliseconds(1500))
            if batchCount == count { return }
            count = batchCount
        }
    }
    func highestSequences() -> [String: UInt64] { sequences.withLock { $0 } }
    func events() -> [RegionEvent] { items.withLock { $0.compactMap(\.event) } }
    func latestStatus(where predicate: (AggregatorStatus) -> Bool) -> AggregatorStatus? {
        items.withLock { $0.compactMap(\.aggregator).last(where: predicate) }
    }
    /// Forgets the statuses seen so far (the next instance's count from 0 again).
    func resetStatuses() { items.withLock { $0.removeAll { $0.aggregator != nil } } }

    func until(_ what: String, timeout: Duration = readinessLimit, _ predicate: (Item) -> Bool) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if items.withLock({ $0.contains(where: predicate) }) { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        if items.withLock({ $0.contains(where: predicate) }) { return }
        let last = items.withLock { $0.compactMap(\.aggregator).last.map { "\($0.state) \($0.counters)" } ?? "none" }
        throw BridgeTestError("timed out waiting for \(what); last aggregator status: \(last)")
    }

    func stop() async {
        task.withLock { $0?.cancel() }
        await client.disconnect()
    }
}

extension RestartTests {
    static let capture = BridgeOutageTests.capture

    @Test("the edge restarted mid-replay (SIGTERM, then kill -9): every batch that reached the broker is processed, none taken for a duplicate",
          .enabled(if: FileManager.default.fileExists(atPath: BridgeOutageTests.capture), "../shared/testdata is absent"))
    func edgeRestarts() async throws {
        let aggregator = Self.binaries.appendingPathComponent("beacon-aggregator").path
        let edge = Self.binaries.appendingPathComponent("beacon-edge").path
        try #require(FileManager.default.isExecutableFile(atPath: aggregator) && FileManager.default.isExecutableFile(atPath: edge),
                     "build the package first (swift build --build-tests)")
        try await withBroker(BrokerConfiguration(users: ["bridge-12": "p-bridge"], allowAnonymous: true, persistence: true)) { central in
            try await withBroker(BrokerConfiguration(
                persistence: true, extraConfiguration: try BridgeOutageTests.bridgeLines(port: central.port, password: "p-bridge"))
            ) { store in
                try await Self.edgeRestarts(central: central, store: store, aggregator: aggregator, edge: edge)
            }
        }
    }

    static func edgeRestarts(central: Broker, store: Broker, aggregator: String, edge: String) async throws {
        let directory = central.directory
        let chain = Self.root.appendingPathComponent("config/chain.example.json").path
        let recorder = try await Recorder.start(central)
        let decider = try ChildProcess(executable: aggregator, arguments: [
            "run", "--config", chain, "--id", "agg-e", "--port", "\(central.port)", "--status-interval", "0.3",
        ], outputFile: directory + "/agg.log")
        try await recorder.until("the aggregator online") { $0.aggregator?.state == .online }
        try await untilBridged(store: store, central: central)

        func replay(_ n: Int) throws -> ChildProcess {
            try ChildProcess(executable: edge, arguments: [
                "--gateway", "gw-12-1a", "--store", "12", "--section", "1", "--allow-all",
                "--broker-host", "127.0.0.1", "--broker-port", "\(store.port)",
                // As recorded, rebased to now: the aggregator decides by its own clock, as live.
                "--replay", capture, "--speed", "1", "--rebase-time",
            ], outputFile: directory + "/edge\(n).log")
        }
        var run = try replay(1)
        try await Task.sleep(for: .seconds(6))
        run.send(SIGTERM)  // systemctl restart
        #expect(await run.waitForExit(timeout: readinessLimit))
        run = try replay(2)
        try await Task.sleep(for: .seconds(6))
        run.send(SIGKILL)  // a crash; systemd restarts it at once
        #expect(await run.waitForExit(timeout: readinessLimit))
        run = try replay(3)
        try await Task.sleep(for: .seconds(6))
        run.send(SIGTERM)
        #expect(await run.waitForExit(timeout: readinessLimit))
        #expect(run.exitStatus == 0)

        try await recorder.settle()
        let arrived = recorder.batchCount
        try await recorder.until("the aggregator processed all \(arrived) batches") {
            $0.aggregator.map { ($0.counters.batches ?? 0) >= UInt64(arrived) } ?? false
        }
        decider.send(SIGTERM)
        #expect(await decider.waitForExit(timeout: readinessLimit))
        try await recorder.until("the aggregator's final status") { $0.aggregator?.state == .offline }
        let final = try #require(recorder.latestStatus(where: { $0.state == .offline }))
        let events = recorder.events()
        print("edge restarts: \(arrived) batches reached the central broker, the aggregator processed \(final.counters.batches ?? 0) (loss \(final.counters.loss.values.reduce(0, +))); events: \(events.map { "\($0.kind) \($0.region)" })")
        // A restarted edge counts from seq 0 again: each batch must be taken as new, not as a duplicate.
        #expect(final.counters.batches == UInt64(arrived))
        #expect(final.counters.loss.isEmpty && final.counters.rejects.isEmpty, "\(final.counters)")
        #expect(!events.isEmpty)
        var inside: [String: Bool] = [:]
        for event in events {
            let key = "\(event.device) \(event.region)"
            #expect(inside[key, default: false] != (event.kind == .enter), "\(event.kind) \(event.region) for \(event.device) twice in a row")
            inside[key] = event.kind == .enter
        }
        await recorder.stop()
    }
}
