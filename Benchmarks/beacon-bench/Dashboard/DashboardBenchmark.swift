import ArgumentParser
import BeaconCore
import BeaconMQTT
import BeaconWire
import BrokerHarness
import Foundation
import Logging
import TestSupport

/// The dashboard at chain scale: the real `beacon-dashboard` reading a chain's retained state —
/// every store's layout and counts, every gateway's status, the aggregators' statuses and the
/// device states — from a real mosquitto. Measures its resident memory empty and holding them,
/// and how long its answers take (idle, then while counts and events stream in): the chain
/// overview and the health page's list against the whole-chain answers the page used before
/// (every store's plan, every gateway's row).
struct DashboardBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dashboard",
        abstract: "The dashboard holding a chain's retained state: memory and answer times, idle and under live updates.")

    @Option(help: "Stores in the chain.")
    var stores = 2000

    @Option(help: "Gateways per store (spread over its sections).")
    var gateways = 20

    @Option(help: "Sections per store.")
    var sections = 10

    @Option(help: "Device states (the dashboard keeps at most 200 000).")
    var devices = 200_000

    @Option(help: "Aggregators sharing the stores out (all online).")
    var aggregators = 3

    @Option(help: "Gateways whose status is a Last Will (offline), spread over the chain.")
    var offlineGateways = 400

    @Option(help: "Requests timed per answer.")
    var requests = 20

    @Option(help: "Counts and events a second published while the answers are timed again.")
    var rate = 2000

    func validate() throws {
        guard (1...65_000).contains(stores) else { throw ValidationError("--stores \(stores) is not 1…65 000") }
        guard (1...200).contains(gateways), (1...60).contains(sections) else { throw ValidationError("--gateways is 1…200 and --sections 1…60") }
        guard (1...1_000).contains(aggregators), aggregators <= stores else { throw ValidationError("--aggregators is 1…1 000, at most --stores") }
        guard offlineGateways <= stores * gateways else { throw ValidationError("--offline-gateways is at most --stores × --gateways") }
    }

    func run() async throws {
        let dashboard = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("beacon-dashboard").path
        guard FileManager.default.isExecutableFile(atPath: dashboard) else {
            throw BenchError("no beacon-dashboard beside beacon-bench (\(dashboard)): swift build -c release --product beacon-dashboard")
        }
        var logger = Logger(label: "bench.dashboard")
        logger.logLevel = .warning
        let hub = BrokerConfiguration(extraConfiguration: ["max_queued_messages 0", "max_queued_bytes 0", "max_inflight_messages 1000"])
        try await withBroker(hub) { broker in
            let directory = try TestDirectory.make("bench-dashboard").path
            let port = try Broker.unusedPort()
            let process = try ChildProcess(executable: dashboard, arguments: [
                "--host", broker.host, "--port", "\(broker.port)", "--listen", "127.0.0.1:\(port)", "--no-login", "--client-id", "bench-dashboard",
            ], outputFile: "\(directory)/dashboard.log")
            defer { process.send(SIGKILL) }
            // Polled every 0.1 ms, not the tests' 10: the answers timed take less than 10 ms.
            let probe = HTTPProbe(port: port, pollInterval: .microseconds(100))
            _ = try await pollAsync("the dashboard answering", within: .seconds(60)) { try? await probe.get("/api/chain?per_page=1") }
            let empty = residentKiB(pid: process.pid)
            let publisher = MQTTClient(configuration: MQTTConfiguration(host: broker.host, port: broker.port, clientID: "bench-dashboard-state"), logger: logger)
            try await publisher.connect()
            let start = ContinuousClock.now
            let published = try await publishChain(publisher)
            print("dashboard: \(stores) stores × \(sections) sections × \(gateways) gateways, \(devices) device states, \(aggregators) aggregators, \(offlineGateways) gateways offline: \(published) retained messages")
            _ = try await pollAsync("the dashboard holding every store, gateway and device", within: .seconds(600), every: .seconds(2)) { () async -> Bool? in
                guard let reply = try? await probe.get("/api/health", timeout: .seconds(60)), reply.status == 200,
                      let health = try? JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any],
                      (health["gateways"] as? [Any])?.count == stores * gateways, health["devices"] as? Int == min(devices, 200_000)
                else { return nil }
                return true
            }
            print("  published and read by the dashboard in \(String(format: "%.1f s", (ContinuousClock.now - start).seconds))")
            let full = residentKiB(pid: process.pid)
            print("  resident: \(empty / 1024) MiB empty, \(full / 1024) MiB holding the chain")
            let paths = [
                ("/api/chain", "the overview's first page (50 stores)"),
                ("/api/chain?sort=health", "what is wrong first"),
                ("/api/chain?sort=occupancy&q=Store%2012", "searched, by occupancy"),
                ("/api/health/problems", "the health page (100 items)"),
                ("/api/stores/\(100 + stores / 2)", "one store's plan"),
                ("/api/health", "baseline: every gateway's row"),
                ("/api/stores", "baseline: every store's plan"),
            ]
            print("  idle, \(requests) requests each, one at a time:")
            try await time(paths, probe)
            let streaming = Task { try await probe.stream("/api/stream", timeout: .seconds(3600)) { _ in Task.isCancelled } }
            let load = Task { try await publishLive(publisher) }
            try await Task.sleep(for: .seconds(2))
            print("  while \(rate) counts and events a second arrive and a page's event stream is open:")
            try await time(paths, probe)
            load.cancel()
            let sent = try await load.value
            streaming.cancel()
            _ = try? await streaming.value
            print("  resident after the live updates (\(sent) sent): \(residentKiB(pid: process.pid) / 1024) MiB")
            await publisher.disconnect()
        }
    }

    /// Times each of `paths`: the median, the 95th percentile and the largest, with the answer's size.
    func time(_ paths: [(String, String)], _ probe: HTTPProbe) async throws {
        for (path, what) in paths {
            var times: [Double] = []
            var bytes = 0
            for _ in 0..<requests {
                let start = ContinuousClock.now
                let reply = try await probe.get(path, timeout: .seconds(120))
                times.append((ContinuousClock.now - start).seconds * 1000)
                guard reply.status == 200 else { throw BenchError("GET \(path) → \(reply.status): \(reply.text.prefix(300))") }
                bytes = reply.body.count
            }
            times.sort()
            let p95 = times[min(times.count - 1, Int((Double(times.count) * 0.95).rounded(.up)) - 1)]
            print(String(format: "    %-44@ %-38@ p50 %7.1f ms, p95 %7.1f ms, max %7.1f ms, %@", path as NSString, what as NSString,
                         times[times.count / 2], p95, times.last ?? 0, Self.size(bytes) as NSString))
        }
    }

    /// Every retained message of the chain, at QoS 1 with at most 1 000 unacknowledged.
    func publishChain(_ client: MQTTClient) async throws -> Int {
        let scheme = TopicScheme.standard
        var waiting: [MQTTPublishReceipt] = []
        var count = 0
        func send(_ topic: Topic, _ payload: [UInt8]) throws {
            waiting.append(try client.enqueuePublish(to: scheme.string(for: topic), payload: payload, qos: .atLeastOnce, retain: true))
            count += 1
        }
        func drain() async throws {
            for receipt in waiting { try await receipt.acknowledged() }
            waiting.removeAll(keepingCapacity: true)
        }
        let t: Int64 = 1_796_000_000_000
        let perAggregator = (stores + aggregators - 1) / aggregators
        for index in 0..<aggregators {
            let low = 101 + index * perAggregator, high = min(100 + stores, low + perAggregator - 1)
            let status = AggregatorStatus(aggregator: try AggregatorID("agg-\(index + 1)"), state: .online, version: "bench", time: Int64(Date().timeIntervalSince1970 * 1000), stores: "\(low)-\(high)")
            try send(status.topic, status.encoded())
        }
        let offlineEvery = offlineGateways == 0 ? Int.max : max(1, stores * gateways / offlineGateways)
        for s in 0..<stores {
            let major = StoreNumber(101 + s)
            let layout = layout(major)
            try send(.storeLayout(major), layout.encoded())
            var total = 0
            for section in layout.sections {
                let count = (s * 7 + Int(section.minor) * 3) % 13
                total += count
                let occupancy = Occupancy(region: .section(SectionRef(store: major, section: section.minor)), name: section.name, count: count, time: t)
                try send(occupancy.topic, occupancy.encoded())
            }
            let occupancy = Occupancy(region: .store(major), name: layout.name, count: total, time: t)
            try send(occupancy.topic, occupancy.encoded())
            for (index, gateway) in layout.gateways.enumerated() {
                let serial = s * gateways + index
                let status = GatewayStatus(
                    gateway: gateway.id, state: serial % offlineEvery == 0 && serial / offlineEvery < offlineGateways ? .offline : .online,
                    version: "bench", section: SectionRef(store: major, section: gateway.section), time: t)
                try send(status.topic, status.encoded())
            }
            if waiting.count >= 1000 { try await drain() }
        }
        for index in 0..<devices {
            let state = HubBenchmark.state(index, stores: stores)
            try send(state.topic, state.encoded())
            if waiting.count >= 1000 { try await drain() }
        }
        try await drain()
        return count
    }

    /// Store `major`'s plan: its sections side by side, 8 m × 12 m each, the gateways spread over them.
    func layout(_ major: StoreNumber) -> StoreLayout {
        let sectionList = (1...sections).map { n in
            let x = Double(n - 1) * 8
            return StoreLayout.Section(
                minor: UInt16(n), name: "Section \(n)",
                polygon: [.init(x: x, y: 0), .init(x: x + 8, y: 0), .init(x: x + 8, y: 12), .init(x: x, y: 12)],
                adjacent: [n - 1, n + 1].filter { (1...sections).contains($0) }.map { UInt16($0) }, streetDoor: n == 1)
        }
        let gatewayList = (0..<gateways).map { g in
            StoreLayout.Gateway(
                id: try! GatewayID("gw-\(major)-\(g + 1)"), section: UInt16(1 + g % sections),
                position: .init(x: Double(g % sections) * 8 + 4, y: 2 + Double(g / sections % 5) * 2))
        }
        return StoreLayout(store: major, name: "Store \(major)", time: 1_796_000_000_000, sections: sectionList, gateways: gatewayList)
    }

    /// Counts and enter events at `rate` a second, across the chain, until cancelled; the number sent.
    func publishLive(_ client: MQTTClient) async throws -> Int {
        let scheme = TopicScheme.standard
        var sent = 0
        let start = ContinuousClock.now
        while !Task.isCancelled {
            let due = Int((ContinuousClock.now - start).seconds * Double(rate))
            while sent < due {
                let major = StoreNumber(101 + sent % stores), section = UInt16(1 + sent % sections)
                if sent % 2 == 0 {
                    let occupancy = Occupancy(region: .section(SectionRef(store: major, section: section)), name: "Section \(section)", count: sent % 17, time: 1_796_000_000_000 + Int64(sent))
                    _ = try client.enqueuePublish(to: scheme.string(for: occupancy.topic), payload: occupancy.encoded(), qos: .atMostOnce, retain: true)
                } else {
                    let state = HubBenchmark.state(sent % max(devices, 1), stores: stores)
                    let event = RegionEvent(
                        kind: .enter, region: .section(SectionRef(store: major, section: section)), device: state.device,
                        uuid: "E2C56DB5-DFFB-48D2-B060-D0F5A71096E0", storeName: "Store \(major)", sectionName: "Section \(section)",
                        time: 1_796_000_000_000 + Int64(sent), proximity: .near, confidence: 0.9, sequence: UInt64(sent))
                    _ = try client.enqueuePublish(to: scheme.string(for: .event(event.region, .enter)), payload: event.encoded(), qos: .atMostOnce, retain: false)
                }
                sent += 1
            }
            do { try await Task.sleep(for: .milliseconds(10)) } catch { break }
        }
        return sent
    }

    static func size(_ bytes: Int) -> String {
        bytes >= 1_048_576 ? String(format: "%.1f MiB", Double(bytes) / 1_048_576) : String(format: "%.1f KiB", Double(bytes) / 1024)
    }
}
