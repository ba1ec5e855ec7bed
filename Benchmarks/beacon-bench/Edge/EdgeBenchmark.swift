import ArgumentParser
import BrokerHarness
import BeaconCore
import BeaconEdge
import Dispatch
import Foundation
import Logging

/// `beacon-bench edge`: the edge's decode rate and its end-to-end rate on one capture, beside the
/// parser Home Assistant uses (bluetooth-data-tools) on the same payloads, in one run.
struct EdgeBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edge",
        abstract: "Edge decode and replay→broker throughput vs bluetooth-data-tools (run with -c release).",
        discussion: """
            Target (edge issue): decode-only ≥ 5 000 000 advertising reports/s on one core. Each \
            in-process figure is measured --rounds times for --seconds, interleaved; best and median \
            are shown. The end-to-end figure replays the capture repeated --repeat times through the \
            edge's own services (as `beacon-edge --replay FILE --speed max`) to a mosquitto started \
            for the run (or --host/--port), QoS 1, until every batch is acknowledged. The Python side \
            runs Benchmarks/python/bdt_bench.py when python3 and bluetooth-data-tools are there.
            """)

    @Option(help: "The btsnoop capture (default: the shared csacca capture).")
    var capture: String?

    @Option(help: "Seconds per in-process measurement per round.")
    var seconds = 2.0

    @Option(help: "Rounds of the in-process measurements.")
    var rounds = 3

    @Option(name: .customLong("repeat"), help: "Repetitions of the capture for the end-to-end run.")
    var repetitions = 500

    @Option(help: "Use this broker instead of starting one.")
    var host: String?

    @Option(help: "Port of --host.")
    var port = 1883

    @Option(help: "python3 to run the bluetooth-data-tools side with.")
    var python = "python3"

    func validate() throws {
        guard seconds > 0, rounds > 0, repetitions > 0 else { throw ValidationError("--seconds, --rounds and --repeat must be positive") }
    }

    /// The package root, from this file's path: the default capture and the Python script are there.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    func run() async throws {
        let path = capture ?? Self.root.appendingPathComponent("../shared/testdata/captures/csacca_horizon74_android_legacy/btsnoop_hci.log").standardizedFileURL.path
        let corpus = try CaptureCorpus(path: path)
        guard corpus.reportsPerPass > 0 else { throw BenchError("\(path) has no advertising reports") }
        print("beacon-bench edge — \(Date().formatted(.iso8601)) — \(machineArchitecture()) — \(ProcessInfo.processInfo.activeProcessorCount) cores")
        print(allocatorDescription())
        print("capture \(path.split(separator: "/").suffix(2).joined(separator: "/")): \(corpus.packets.count) HCI events, \(corpus.reportsPerPass) advertising reports per pass")

        var figures: [String: [(rate: Double, cpu: Double)]] = [:]
        var checksum = 0
        for round in 1...rounds {
            for (name, body) in inProcess(corpus) {
                let result = measured(body)
                figures[name, default: []].append((result.rate, result.cpu))
                checksum &+= result.checksum
            }
            print("round \(round): " + Self.inProcessNames.map { "\($0.short) \(formatRate(figures[$0.name]!.last!.rate))" }.joined(separator: ", "))
        }
        let endToEnd = try await runEndToEnd(corpus)
        let python = runPython(corpus)

        print("")
        print("figure (one capture, same run)".padding(toLength: 58, withPad: " ", startingAt: 0)
            + "best reports/s".leftPadded(18) + "median".leftPadded(16) + "CPU µs/1000".leftPadded(14))
        for entry in Self.inProcessNames {
            let values = figures[entry.name] ?? []
            let best = values.max { $0.rate < $1.rate }
            let median = values.map(\.rate).sorted()[values.count / 2]
            print(entry.name.padding(toLength: 58, withPad: " ", startingAt: 0) + formatRate(best?.rate ?? .nan).leftPadded(18)
                + formatRate(median).leftPadded(16) + String(format: "%.1f", best?.cpu ?? .nan).leftPadded(14))
        }
        if let endToEnd {
            print("Swift: replay → pipeline → mosquitto, QoS 1 (end to end)".padding(toLength: 58, withPad: " ", startingAt: 0)
                + formatRate(endToEnd.rate).leftPadded(18) + "—".leftPadded(16) + String(format: "%.1f", endToEnd.cpu).leftPadded(14))
            print("    \(endToEnd.reports) reports, \(endToEnd.batches) batches, \(endToEnd.sightings) sightings acknowledged in \(String(format: "%.2f", endToEnd.seconds)) s (CPU: all threads of this process)")
        }
        switch python {
        case .success(let result):
            for (label, key) in [("Python bluetooth-data-tools, no cache", "uncached"), ("Python bluetooth-data-tools, with its lru_cache", "cached")] {
                let figure = result[key] as? [String: Any]
                let rate = figure?["rate"] as? Double ?? .nan
                let cpu = figure?["cpu_us_per_1000"] as? Double ?? .nan
                print(label.padding(toLength: 58, withPad: " ", startingAt: 0) + formatRate(rate).leftPadded(18) + "—".leftPadded(16)
                    + String(format: "%.1f", cpu).leftPadded(14))
            }
            print("    bluetooth-data-tools \(result["bluetooth_data_tools"] ?? "?"), Python \(result["python"] ?? "?"), compiled \(result["compiled"] ?? "?"): parse_advertisement_data_bytes + iBeacon check per payload (no HCI framing); iBeacons per pass \((result["uncached"] as? [String: Any])?["ibeacons_per_pass"] ?? "?")")
        case .failure(let reason):
            print("Python bluetooth-data-tools: skipped — \(reason)")
        }
        let decode = figures[Self.inProcessNames[1].name]?.map(\.rate).max() ?? 0
        print("")
        print("decode-only (HCI event → device key) ≥ 5 000 000/s: \(decode >= 5_000_000 ? "yes" : "no") (\(formatRate(decode)))")
        if checksum == 42 { print("") }
    }

    // MARK: In-process measurements

    static let inProcessNames: [(name: String, short: String)] = [
        ("Swift: AD payload → beacon frame → device key", "payload"),
        ("Swift: decode-only, HCI event → reports → frame → key", "decode"),
        ("Swift: decode-only + id text per report (naive)", "naive"),
        ("Swift: decode + allow-list + batch + JSON encode", "pipeline"),
    ]

    /// The bodies, in the order of ``inProcessNames``; each returns (reports, checksum).
    func inProcess(_ corpus: CaptureCorpus) -> [(String, () -> (items: Int, checksum: Int))] {
        let payloads = corpus.payloads.map { $0[...] }
        let packets = corpus.packets
        let span = (packets.last?.time ?? 0) - (packets.first?.time ?? 0) + 1_000_000
        nonisolated(unsafe) var pass: Int64 = 0  // the pipeline's repetitions move forward in time
        nonisolated(unsafe) var pipeline = ReportPipeline(
            allowList: .everything, batcher: Batcher(gateway: try! GatewayID("gw-bench"), windowMilliseconds: 1000))
        return [
            (Self.inProcessNames[0].name, {
                var sum = 0
                for payload in payloads {
                    if let key = AdvertisingData(payload).keyBeaconFrame?.deviceKey { sum &+= Self.digest(key) }
                }
                return (payloads.count, sum)
            }),
            (Self.inProcessNames[1].name, {
                var items = 0, sum = 0
                for packet in packets {
                    // Only LE Meta events carry reports; the code byte says so before any parsing.
                    guard packet.event.first == HCIEvent.leMetaEventCode, let event = try? HCIEvent(packet.event) else { continue }
                    var reports = event.advertisingReports()
                    while let report = try? reports.next() {
                        items += 1
                        if let key = report.deviceKey(frame: report.keyBeaconFrame) { sum &+= Self.digest(key) }
                    }
                }
                return (items, sum)
            }),
            (Self.inProcessNames[2].name, {
                var items = 0, sum = 0
                for packet in packets {
                    // Only LE Meta events carry reports; the code byte says so before any parsing.
                    guard packet.event.first == HCIEvent.leMetaEventCode, let event = try? HCIEvent(packet.event) else { continue }
                    var reports = event.advertisingReports()
                    while let report = try? reports.next() {
                        items += 1
                        if let key = report.deviceKey(frame: report.keyBeaconFrame) { sum &+= key.deviceID.rawValue.utf8.count }
                    }
                }
                return (items, sum)
            }),
            (Self.inProcessNames[3].name, {
                var sum = 0
                let shift = span * pass
                pass += 1
                for packet in packets {
                    pipeline.consume(HCIPacket(event: packet.event, time: packet.time + shift)) { sum &+= $0.payload.count }
                }
                let counts = pipeline.takeCounts()
                return (Int(counts.reports), sum)
            }),
        ]
    }

    /// A cheap digest of a key, so the optimiser cannot drop the decoding.
    static func digest(_ key: DeviceKey) -> Int {
        switch key {
        case .iBeacon(let uuid, let major, let minor): return Int(truncatingIfNeeded: uuid.low) &+ Int(major) &+ Int(minor)
        case .eddystone(let namespace, let instance): return Int(truncatingIfNeeded: namespace.low ^ instance.rawValue)
        case .altBeacon(let id1, let id2, let id3): return Int(truncatingIfNeeded: id1.high) &+ Int(id2) &+ Int(id3)
        case .mac(let address): return Int(truncatingIfNeeded: address.rawValue)
        }
    }

    /// Runs `body` for --seconds on this thread: reports/s and this thread's CPU µs per 1000 reports.
    func measured(_ body: () -> (items: Int, checksum: Int)) -> (rate: Double, cpu: Double, checksum: Int) {
        let cpuStart = Self.threadCPU()
        var items = 0
        let result = throughput(seconds: seconds) {
            let pass = body()
            items += pass.items
            return pass
        }
        let cpu = Self.threadCPU() - cpuStart
        return (result.rate, cpu / Double(max(items, 1)) * 1e9, result.checksum)
    }

    static func threadCPU() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }

    static func processCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6 + Double(usage.ru_stime.tv_sec)
            + Double(usage.ru_stime.tv_usec) / 1e6
    }

    // MARK: End to end

    struct EndToEnd {
        var reports: Int
        var batches: UInt64
        var sightings: UInt64
        var seconds: Double
        var rate: Double
        var cpu: Double
    }

    /// Replays the repeated capture through an ``EdgeRuntime`` to the broker and waits for the flush.
    func runEndToEnd(_ corpus: CaptureCorpus) async throws -> EndToEnd? {
        let broker: Broker?
        let port: Int
        if host == nil {
            do {
                broker = try await Broker.start()
                port = broker!.port
            } catch {
                print("end to end: skipped — \(error)")
                return nil
            }
        } else {
            broker = nil
            port = self.port
        }
        do {
            let result = try await endToEnd(corpus, port: port)
            await broker?.cleanUp()
            return result
        } catch {
            await broker?.cleanUp()
            throw error
        }
    }

    func endToEnd(_ corpus: CaptureCorpus, port: Int) async throws -> EndToEnd {
        let file = try BtsnoopFile(corpus.repeated(repetitions))
        var config = EdgeConfig(
            gateway: try GatewayID("gw-bench"), store: 1, section: 1, allowList: .everything, batchWindowMilliseconds: 1000,
            buffer: EdgeConfig.Buffer(maxBatches: 1_000_000))
        config.broker.host = host ?? "127.0.0.1"
        config.broker.port = port
        let runtime = try EdgeRuntime(
            config: config, source: .replay(file, path: "bench", speed: .max, timeOffset: 0), flushTimeout: .seconds(120),
            logLevel: .warning)
        let clock = ContinuousClock()
        let cpuStart = Self.processCPU()
        let start = clock.now
        do {
            try await runtime.run(handlingSignals: false)
        } catch {
            throw BenchError("end-to-end run failed: \(error)")
        }
        let elapsed = clock.now - start
        let cpu = Self.processCPU() - cpuStart
        guard runtime.unflushedBatches == 0 else { throw BenchError("the broker did not take every batch") }
        let reports = Int(runtime.counters.reports.load(ordering: .relaxed))
        let (whole, attos) = elapsed.components
        let seconds = Double(whole) + Double(attos) / 1e18
        return EndToEnd(
            reports: reports, batches: runtime.counters.publishedBatches.load(ordering: .relaxed),
            sightings: runtime.counters.published.load(ordering: .relaxed), seconds: seconds, rate: Double(reports) / seconds,
            cpu: cpu / Double(max(reports, 1)) * 1e9)
    }

    // MARK: Python

    /// Runs the bluetooth-data-tools side on the capture's payloads; its JSON, or why it was skipped.
    func runPython(_ corpus: CaptureCorpus) -> Result<[String: Any], BenchError> {
        let script = Self.root.appendingPathComponent("Benchmarks/python/bdt_bench.py").path
        guard FileManager.default.fileExists(atPath: script) else { return .failure(BenchError("\(script) not found")) }
        let payloadFile = FileManager.default.temporaryDirectory.appendingPathComponent("beacon-bench-payloads-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: payloadFile) }
        let text = corpus.payloads.map { $0.map { String(format: "%02x", $0) }.joined() }.joined(separator: "\n") + "\n"
        do { try text.write(to: payloadFile, atomically: false, encoding: .utf8) } catch {
            return .failure(BenchError("cannot write the payloads: \(error)"))
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script, payloadFile.path, String(seconds)]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return .failure(BenchError("\(python) not runnable: \(error)")) }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
            let result = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else { return .failure(BenchError("\(python) \(script) failed (status \(process.terminationStatus))")) }
        if let error = result["error"] as? String { return .failure(BenchError(error)) }
        return .success(result)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
