import ArgumentParser
import BeaconCore
import BeaconEngine
import BeaconMQTT
import BeaconSim
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import Synchronization
import TestSupport

/// The central tier split at chain scale, on this machine: K shard brokers and an output hub
/// (each an ordinary mosquitto), the real `beacon-aggregator` per shard with its store range,
/// and every gateway of a chain publishing its batches to its store's shard. Measures what each
/// shard delivers to its aggregator, the aggregators' lag and loss from their statuses, the
/// events reaching the hub, and the brokers' and aggregators' memory and CPU.
struct ChainBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chain",
        abstract: "Shards, a hub and an aggregator per shard under a whole chain's gateways: delivery, lag, memory, CPU.")

    @Option(help: "Stores in the chain (the default layout: 6 sections).")
    var stores = 2000

    @Option(help: "Gateways per section (1…9): 3 makes 18 a store.")
    var gatewaysPerSection = 3

    @Option(help: "Central shards, each with its broker and aggregator.")
    var shards = 3

    @Option(help: "Devices, spread over the stores; each heard by 4 gateways of its store.")
    var devices = 20_000

    @Option(help: "Adverts a second each device–gateway link reports.")
    var advertsPerSecond = 1.0

    @Option(help: "Seconds one batch covers: each gateway sends a batch this often (the edges' batch interval), to bring a whole chain's message rate within this machine's two cores.")
    var window = 4

    @Option(help: "Seconds of traffic.")
    var duration = 120

    func validate() throws {
        guard (1...20_000).contains(stores), (1...DefaultChain.maxGatewaysPerSection).contains(gatewaysPerSection) else {
            throw ValidationError("--stores is 1…20 000 and --gateways-per-section 1…\(DefaultChain.maxGatewaysPerSection)")
        }
        guard (1...16).contains(shards), shards <= stores else { throw ValidationError("--shards is 1…16, at most --stores") }
        guard (1...5_000_000).contains(devices), advertsPerSecond > 0, (1...60).contains(window), (10...86_400).contains(duration) else {
            throw ValidationError("--devices 1…5 000 000, --adverts-per-second > 0, --window 1…60, --duration 10…86 400")
        }
    }

    /// What the hub heard from one aggregator.
    struct Heard {
        var events = 0
        var lags: [Int64] = []
        var sightings: UInt64 = 0
        var lost: UInt64 = 0
        var offline: UInt64 = 0
        var online = false
    }

    func run() async throws {
        let aggregatorBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("beacon-aggregator").path
        guard FileManager.default.isExecutableFile(atPath: aggregatorBinary) else {
            throw BenchError("no beacon-aggregator beside beacon-bench (\(aggregatorBinary)): swift build -c release --product beacon-aggregator")
        }
        var logger = Logger(label: "bench.chain")
        logger.logLevel = .warning
        let directory = try TestDirectory.make("bench-chain").path
        let config = DefaultChain.config(stores: stores, gatewaysPerSection: gatewaysPerSection)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try encoder.encode(config).write(to: URL(fileURLWithPath: "\(directory)/chain.json"))
        let chain = try config.resolve()
        let ranges = Self.split(101...(100 + stores), into: shards)

        let hub = try await Broker.start(BrokerConfiguration(extraConfiguration: ["max_queued_messages 0", "max_queued_bytes 1073741824"]))
        var brokers: [Broker] = [hub]
        var processes: [ChildProcess] = []
        defer { for process in processes { process.send(SIGKILL) } }
        do {
            var shardBrokers: [Broker] = []
            for _ in 0..<shards {
                let shard = try await Broker.start(BrokerConfiguration(extraConfiguration: ["max_queued_messages 100000"]))
                shardBrokers.append(shard)
                brokers.append(shard)
            }
            let heard = Mutex([String: Heard]())
            let watcher = MQTTClient(configuration: MQTTConfiguration(host: hub.host, port: hub.port, clientID: "bench-chain-hub"), logger: logger)
            try await watcher.connect()
            let scheme = TopicScheme.standard
            let hubMessages = try await watcher.subscribe(to: [scheme.allEvents, scheme.allAggregatorStatuses], qos: .atLeastOnce)
            let listening = Task {
                for await message in hubMessages {
                    if let status = try? AggregatorStatus.decode(message.payload) {
                        heard.withLock { all in
                            var one = all[status.aggregator.rawValue, default: Heard()]
                            one.online = status.state == .online
                            if let lag = status.counters.lagMilliseconds { one.lags.append(lag) }
                            one.sightings = status.counters.sightings ?? 0
                            one.lost = status.counters.loss.values.reduce(0, +)
                            one.offline = status.counters.offlineCount ?? UInt64(status.counters.offline.count)
                            all[status.aggregator.rawValue] = one
                        }
                    } else if let event = try? RegionEvent.decode(message.payload),
                              let index = ranges.firstIndex(where: { $0.contains(Int(event.region.store)) }) {
                        heard.withLock { $0["agg-\(index + 1)", default: Heard()].events += 1 }
                    }
                }
            }
            for (index, range) in ranges.enumerated() {
                processes.append(try ChildProcess(executable: aggregatorBinary, arguments: [
                    "run", "--config", "\(directory)/chain.json", "--id", "agg-\(index + 1)", "--stores", "\(range.lowerBound)-\(range.upperBound)",
                    "--port", "\(shardBrokers[index].port)", "--output-port", "\(hub.port)", "--status-interval", "5", "--log-level", "warning",
                ], outputFile: "\(directory)/agg-\(index + 1).log"))
            }
            _ = try await pollAsync("every aggregator online on the hub", within: .seconds(300), every: .milliseconds(500)) {
                heard.withLock { all in (1...shards).allSatisfy { all["agg-\($0)"]?.online == true } } ? true : nil
            }
            heard.withLock { all in for key in all.keys { all[key]?.lags = [] } }
            var publishers: [MQTTClient] = []
            for (index, shard) in shardBrokers.enumerated() {
                let client = MQTTClient(configuration: MQTTConfiguration(host: shard.host, port: shard.port, clientID: "bench-chain-gateways-\(index + 1)"), logger: logger)
                try await client.connect()
                publishers.append(client)
            }
            print("chain: \(stores) stores × \(chain.stores[0].gateways.count) gateways (\(chain.gateways.count)) over \(shards) shard(s) + a hub, \(devices) devices × 4 links at \(advertsPerSecond) advert(s)/s, a batch every \(window) s per gateway, \(duration) s")
            let measuring = ContinuousClock.now
            let cpuBefore = processes.map { cpuSeconds(pid: $0.pid) } + brokers.map { cpuSeconds(pid: $0.processID ?? 0) } + [cpuSeconds(pid: getpid())]
            let sent = try await publish(chain: chain, ranges: ranges, to: publishers)
            let lagsDuringRun = heard.withLock { all in all.mapValues(\.lags) }
            // Every sighting sent should reach its aggregator: its status counts them.
            let delivered = try? await pollAsync("the aggregators to count every sighting sent", within: .seconds(60), every: .seconds(1)) {
                heard.withLock { all in (0..<shards).allSatisfy { all["agg-\($0 + 1)"]?.sightings ?? 0 >= sent[$0].sightings } } ? true : nil
            }
            try await Task.sleep(for: .seconds(6))
            let cpuAfter = processes.map { cpuSeconds(pid: $0.pid) } + brokers.map { cpuSeconds(pid: $0.processID ?? 0) } + [cpuSeconds(pid: getpid())]
            let seconds = Double(duration)
            // CPU over the whole measured time: the publishing (longer when it fell behind), the wait for the counts and the pause.
            let measured = (ContinuousClock.now - measuring).seconds
            let result = heard.withLock { $0 }
            for index in 0..<shards {
                let id = "agg-\(index + 1)", one = result[id] ?? Heard(), out = sent[index]
                let lags = (lagsDuringRun[id] ?? []).sorted()
                let lag = lags.isEmpty ? "–" : "lag p50 \(lags[lags.count / 2]) ms, max \(lags.last ?? 0) ms (\(lags.count) statuses)"
                print("  shard \(index + 1) (stores \(ranges[index].lowerBound)-\(ranges[index].upperBound)): sent \(Int(Double(out.batches) / seconds)) batches/s, \(Int(Double(out.sightings) / seconds)) sightings/s; \(id) counted \(one.sightings) of \(out.sightings) sightings (\(String(format: "%.2f", 100 * Double(one.sightings) / Double(max(out.sightings, 1)))) %), \(one.lost) batch(es) lost, \(one.offline) gateway(s) counted offline; \(lag); \(one.events) events on the hub")
            }
            if delivered == nil { print("  (not every sighting was counted within 60 s of the end)") }
            let names = (1...shards).map { "agg-\($0)" } + ["hub"] + (1...shards).map { "shard \($0)" } + ["gateways"]
            let pids = processes.map(\.pid) + brokers.map { $0.processID ?? 0 } + [getpid()]
            for (index, name) in names.enumerated() {
                let cpu = (cpuAfter[index] - cpuBefore[index]) / measured
                print(String(format: "  %-8@ resident %5d MiB, CPU %.0f %% of a core over the %.0f s measured", name as NSString, residentKiB(pid: pids[index]) / 1024, cpu * 100, measured))
            }
            for publisher in publishers { await publisher.disconnect() }
            listening.cancel()
            await watcher.disconnect()
        } catch {
            for broker in brokers { await broker.cleanUp() }
            throw error
        }
        for process in processes {
            process.send(SIGTERM)
            _ = await process.waitForExit(timeout: .seconds(30))
        }
        for broker in brokers { await broker.cleanUp() }
    }

    /// Every gateway's batches for `duration` s, each to its store's shard, spread evenly over the
    /// window after the one they cover (as edges that send at the end of their interval, not all
    /// at once); what each shard was sent.
    func publish(chain: Chain, ranges: [ClosedRange<Int>], to publishers: [MQTTClient]) async throws -> [(batches: Int, sightings: Int)] {
        let scheme = TopicScheme.standard
        let clock = ContinuousClock()
        var generator = try LoadGenerator(
            chain: chain, devices: devices, advertsPerSecond: advertsPerSecond, windowSeconds: window, start: Int64(Date().timeIntervalSince1970 * 1000))
        var sent = Array(repeating: (batches: 0, sightings: 0), count: ranges.count)
        let slices = window * 20
        let began = clock.now
        var late = 0
        for w in 0..<(duration / window) {
            let batches = generator.nextWindow()
            // Sent in the window after the one they cover.
            let windowStart = began + .seconds((w + 1) * window)
            for slice in 0..<slices {
                let due = windowStart + .milliseconds(slice * window * 1000 / slices)
                if clock.now < due { try await Task.sleep(until: due, clock: clock) } else if slice == 0 { late += 1 }
                for b in stride(from: slice, to: batches.count, by: slices) {
                    let batch = batches[b]
                    guard let shard = ranges.firstIndex(where: { $0.contains(Int(batch.store)) }) else { continue }
                    // Each edge's interval ends at its own moment: the batch says it was sent now.
                    var payload = batch.sightingBatch
                    payload.sent = Int64(Date().timeIntervalSince1970 * 1000)
                    _ = try publishers[shard].enqueuePublish(
                        to: scheme.string(for: .sightings(store: batch.store, gateway: batch.gateway)), payload: payload.encoded(),
                        qos: .atMostOnce, retain: false)
                    sent[shard].batches += 1
                    sent[shard].sightings += batch.sightings.count
                }
            }
        }
        if late > 0 { print("  the publisher fell behind: \(late) window(s) began late") }
        return sent
    }

    /// `stores` in `count` contiguous ranges, as even as they divide.
    static func split(_ stores: ClosedRange<Int>, into count: Int) -> [ClosedRange<Int>] {
        let size = stores.count / count, extra = stores.count % count
        var low = stores.lowerBound
        return (0..<count).map { index in
            let high = low + size + (index < extra ? 1 : 0) - 1
            defer { low = high + 1 }
            return low...high
        }
    }
}
