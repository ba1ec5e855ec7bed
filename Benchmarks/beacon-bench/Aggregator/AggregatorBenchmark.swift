import ArgumentParser
import BeaconAggregator
import BeaconEngine
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import ServiceLifecycle

/// `beacon-bench aggregator`: the three figures of the aggregator issue.
struct AggregatorBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "aggregator",
        abstract: "Aggregator throughput (in process and through mosquitto) and memory per device.")

    @Option(help: "Which figures: engine, e2e, memory or all.")
    var only = "all"

    @Option(help: "Seconds of synthetic traffic per pass.")
    var seconds = 30

    @Option(help: "Adverts per device per second (1: ~27 sightings per batch; 2: ~54, like the wire benchmark's 50).")
    var adverts = 1

    @Option(help: "Passes of each figure (in process: best and median; end to end: each pass on a fresh broker, and the median).")
    var passes = 3

    func run() async throws {
        print("beacon-bench aggregator — \(ISO8601DateFormatter().string(from: Date())), \(machineArchitecture()), \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(allocatorDescription())
        if only == "all" || only == "engine" { try engine() }
        if only == "all" || only == "e2e" { try await endToEnd() }
        if only == "all" || only == "memory" { try memory() }
    }

    /// Engine + json-c decode in process: the live service's per-message path without the broker.
    func engine() throws {
        let traffic = try AggregatorTraffic(stores: 100, devices: 10_000, advertsPerSecond: adverts, seconds: seconds)
        let bytes = traffic.messages.reduce(0) { $0 + $1.payload.count }
        print("\nengine + json-c decode, one core: 100 stores, 10 000 devices, 4 gateways each, \(adverts) advert(s)/s; \(traffic.messages.count) batches, \(traffic.sightings) sightings, avg \(bytes / traffic.messages.count) B/batch")
        var rates: [Double] = []
        var outputs = 0
        for _ in 0..<max(1, passes) {
            var processor = MessageProcessor(chain: traffic.chain, scheme: .standard, aggregator: try AggregatorID("bench"))
            var out: [Outbound] = []
            out.reserveCapacity(1024)
            let clock = ContinuousClock()
            let start = clock.now
            for m in traffic.messages {
                processor.handle(topic: m.topic, payload: m.payload, now: nil, into: &out)
                outputs += out.count
                out.removeAll(keepingCapacity: true)
            }
            let elapsed = clock.now - start
            rates.append(Double(processor.counters.sightings) / elapsed.seconds)
        }
        rates.sort()
        // The same batches through the wire decoder alone: the share of the time that is json-c.
        var decodeRates: [Double] = []
        for _ in 0..<max(1, passes) {
            let decoder = WireDecoder()
            var count = 0
            let clock = ContinuousClock()
            let start = clock.now
            for m in traffic.messages {
                if let batch = try? decoder.decode(SightingBatch.self, from: m.payload) { count += batch.sightings.count }
            }
            decodeRates.append(Double(count) / (clock.now - start).seconds)
        }
        decodeRates.sort()
        print("  SightingBatch decode alone (json-c + model):                     sightings: best \(formatRate(decodeRates.last!)), median \(formatRate(decodeRates[decodeRates.count / 2]))")
        print("  MessageProcessor.handle (validate, decode, engine, encode outputs): sightings: best \(formatRate(rates.last!)), median \(formatRate(rates[rates.count / 2]))  (target ≥ 600 000/s; \(outputs / rates.count) messages out per pass)")
    }

    /// Through a local mosquitto: a plain subscriber's raw delivery rate, then the aggregator's
    /// processed rate, on the same batches in the same run.
    func endToEnd() async throws {
        let traffic = try AggregatorTraffic(stores: 100, devices: 10_000, advertsPerSecond: adverts, seconds: seconds, start: Int64(Date().timeIntervalSince1970 * 1000) - Int64(seconds) * 1000)
        print("\nend to end through mosquitto (QoS 1 subscriptions; load: one QoS 0 publisher writing 64 KiB at a time): \(traffic.messages.count) batches, \(traffic.sightings) sightings")
        // Passes alternate the two measurements on a fresh broker each, so a drift of the machine's
        // speed (seen up to 30 % within an hour on the CI VM) weighs on both sides alike.
        var raws: [Double] = [], aggs: [Double] = [], ratios: [Double] = []
        for pass in 1...max(1, passes) {
            print("  pass \(pass):")
            let (raw, agg) = try await withBroker(BrokerConfiguration(extraConfiguration: ["max_queued_messages 0", "max_inflight_messages 0"])) { broker in
                try await endToEnd(traffic, through: broker)
            }
            raws.append(raw)
            aggs.append(agg)
            ratios.append(agg / raw)
        }
        func median(_ v: [Double]) -> Double {
            let s = v.sorted()
            return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
        }
        print("  median of \(raws.count) pass(es): raw \(formatRate(median(raws))), aggregator \(formatRate(median(aggs))) sightings, ratio \(String(format: "%.2f", median(ratios)))×  (targets: ≥ 400 000/s and ≥ 0.5×)")
    }

    /// One pass: returns the raw delivery rate and the aggregator's processed rate, sightings/s.
    func endToEnd(_ traffic: AggregatorTraffic, through broker: Broker) async throws -> (raw: Double, aggregator: Double) {
        let logger = Logger(label: "bench")

        // 1. A plain subscriber: how fast the broker delivers these batches to one client.
        var config = MQTTConfiguration(host: broker.host, port: broker.port, clientID: "bench-raw")
        config.inboundBufferCapacity = 1_000_000
        let raw = MQTTClient(configuration: config, logger: logger)
        try await raw.connect()
        let subscription = try await raw.subscribe(to: ["beaconnet/sightings/+/+"], qos: .atLeastOnce)
        // The load: every batch as a QoS 0 PUBLISH, encoded before any clock starts (see RawMQTTStream).
        let stream = RawMQTTStream(traffic.messages, clientID: "bench-pub")
        let clock = ContinuousClock()
        let rawStart = clock.now
        let counting = Task { () -> Int in
            var n = 0
            for await _ in subscription {
                n += 1
                if n == traffic.messages.count { break }
            }
            return n
        }
        try await stream.send(host: broker.host, port: broker.port)
        let received = await counting.value
        let rawSeconds = (clock.now - rawStart).seconds
        let dropped = subscription.droppedMessages
        await raw.disconnect()
        let rawRate = Double(traffic.sightings) * Double(received) / Double(traffic.messages.count) / rawSeconds

        // 2. The aggregator service, on its own, same batches.
        var settings = AggregatorSettings(chain: traffic.chain, mqtt: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "bench-agg"),
                                          aggregator: try AggregatorID("bench"), version: "bench")
        settings.mqtt.inboundBufferCapacity = AggregatorSettings.inboundBuffer  // as beacon-aggregator runs
        settings.eventTimeOnly = true
        let service = AggregatorService(settings: settings, logger: Logger(label: "bench.aggregator", factory: { _ in SwiftLogNoOpLogHandler() }))
        let group = ServiceGroup(services: [service], logger: Logger(label: "bench.group", factory: { _ in SwiftLogNoOpLogHandler() }))
        let running = Task { try await group.run() }
        try await Task.sleep(for: .milliseconds(500))
        let aggStart = clock.now
        try await stream.send(host: broker.host, port: broker.port)
        let deadline = clock.now + .seconds(120)
        while service.processedSightings < UInt64(traffic.sightings) && clock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        let aggSeconds = (clock.now - aggStart).seconds
        let processed = service.processedSightings
        // The events, states and occupancy those decisions published, QoS 1: how long until the
        // broker has acknowledged them all.
        let backlog = service.pendingPublishes
        while service.pendingPublishes > 0 && clock.now < deadline + .seconds(60) {
            try await Task.sleep(for: .milliseconds(5))
        }
        let drainSeconds = (clock.now - aggStart).seconds - aggSeconds
        await group.triggerGracefulShutdown()
        _ = try? await running.value
        let aggRate = Double(processed) / aggSeconds
        print("    broker raw delivery to a plain subscriber: \(formatRate(rawRate)) sightings (\(received)/\(traffic.messages.count) batches, \(dropped) dropped)")
        print("    aggregator processed:                      \(formatRate(aggRate)) sightings (\(processed)/\(traffic.sightings) sightings)")
        print("    its messages out: \(backlog) still unacknowledged when the last sighting was decided, all acknowledged \(String(format: "%.2f", drainSeconds)) s later")
        print("    ratio aggregator / raw: \(String(format: "%.2f", aggRate / rawRate))×")
        return (rawRate, aggRate)
    }

    /// Resident bytes per tracked device with 100 000 devices heard by 4 gateways each.
    func memory() throws {
        let before = residentBytes()
        let traffic = try AggregatorTraffic(stores: 1000, devices: 100_000, seconds: 3)
        var processor = MessageProcessor(chain: traffic.chain, scheme: .standard, aggregator: try AggregatorID("bench"))
        var out: [Outbound] = []
        let withTraffic = residentBytes()
        for m in traffic.messages {
            processor.handle(topic: m.topic, payload: m.payload, now: nil, into: &out)
            out.removeAll(keepingCapacity: true)
        }
        let after = residentBytes()
        let devices = processor.engine.trackedDevices
        let inside = processor.snapshot().count
        print("\nmemory: \(devices) devices tracked (\(inside) inside), 4 gateways each, 1000 stores")
        print("  resident growth while tracking: \(after - withTraffic) B → \(String(format: "%.0f", Double(after - withTraffic) / Double(max(devices, 1)))) B/device (target ≤ 2 KiB; process \(before / 1_048_576) MiB before, traffic held in memory \((withTraffic - before) / 1_048_576) MiB)")
    }
}

extension Duration {
    var seconds: Double {
        let (s, a) = components
        return Double(s) + Double(a) / 1e18
    }
}
