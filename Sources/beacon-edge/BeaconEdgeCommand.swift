import ArgumentParser
import BeaconAllocator
import BeaconCommandLine
import BeaconCore
import BeaconEdge
import BeaconMetricsExport
import BeaconMQTT
import BeaconWire
import Foundation
import Logging
import ServiceLifecycle

/// beacon-edge: one per gateway. Scans BLE (BlueZ HCI or a btsnoop replay), decodes beacons and
/// publishes raw sightings to the broker.
@main
struct BeaconEdgeCommand: AsyncParsableCommand {
    /// Applies the allocator tuning (a one-time re-exec, see `AllocatorTuning`), then runs as
    /// ArgumentParser's own `main` does, the help ending with the exit statuses.
    static func main() async {
        AllocatorTuning.apply()
        await mainEndingHelpWithExitStatuses()
    }

    static let configuration = CommandConfiguration(
        commandName: "beacon-edge",
        abstract: "Scan BLE advertising on one gateway and publish raw sightings to MQTT.",
        discussion: """
            Reads the config file (see config/edge.example.json), applies the flags on top, and runs \
            until SIGTERM or SIGINT: scan → decode → allow-list → one batch per window → publish \
            (QoS 1), with a retained status and an `offline` Last Will. With --replay FILE it replays \
            a btsnoop capture through the same path and exits 0 once every batch is acknowledged \
            (65 when the capture is cut off or not a capture: what came before it is still published).
            """,
        subcommands: [DecodeCommand.self])

    @Option(name: .long, help: "The JSON config file.")
    var config: String?

    @Option(help: "This gateway's id (gateway).")
    var gateway: String?

    @Option(help: "The store, iBeacon major (store).")
    var store: Int?

    @Option(help: "The section, iBeacon minor (section).")
    var section: Int?

    /// The broker and the login, laid over the config's `broker` keys.
    @OptionGroup(title: "Broker (over the config's broker keys)")
    var broker: BrokerOptions

    @Option(name: .customLong("broker-host"), help: .hidden)
    var brokerHost: String?

    @Option(name: .customLong("broker-port"), help: .hidden)
    var brokerPort: Int?

    @Option(help: "BlueZ adapter (scan.adapter), e.g. hci0.")
    var adapter: String?

    @Option(name: .customLong("ibeacon-uuid"), help: "Allow an iBeacon UUID (allow_list.ibeacon_uuids); repeatable.")
    var iBeaconUUIDs: [String] = []

    @Flag(name: .customLong("allow-all"), help: "Publish every device with an identity (allow_all).")
    var allowAll = false

    @Option(name: .customLong("batch-window-ms"), help: "Batch window in ms (batch_window_ms).")
    var batchWindow: Int?

    @Option(name: .customLong("spill-file"), help: "Outage buffer spill file (buffer.spill_file).")
    var spillFile: String?

    @Option(name: .customLong("topic-root"), help: "Topic root (topic_root).")
    var topicRoot: String?

    @Option(help: "Replay this btsnoop capture instead of scanning.")
    var replay: String?

    @Option(help: "Replay speed: 1 (as recorded), another factor from 0.001 to 1000000, or max.")
    var speed = "1"

    @Flag(name: .customLong("rebase-time"), help: "Shift replayed timestamps so that the capture starts now.")
    var rebaseTime = false

    @Option(name: .customLong("flush-timeout"), help: "Seconds shutdown waits for the broker to take what is left.")
    var flushTimeout = 10.0

    @Flag(name: .customLong("print-config"), help: "Print the effective config and exit.")
    var printConfig = false

    @OptionGroup
    var logging: LoggingOptions

    @Option(help: "Serve Prometheus metrics at http://HOST:PORT/metrics (e.g. 127.0.0.1:9465).")
    var metrics: String?

    func validate() throws {
        guard BtsnoopReplay.Speed(speed) != nil else { throw ValidationError("--speed must be max or a factor from 0.001 to 1000000, got \(speed)") }
        // The names before --host and --port, still taken from scripts.
        guard brokerHost == nil || broker.host == nil else { throw ValidationError("--broker-host is --host: give one of them") }
        guard brokerPort == nil || broker.port == nil else { throw ValidationError("--broker-port is --port: give one of them") }
        if let brokerPort, !(1...65_535).contains(brokerPort) { throw ValidationError("--broker-port \(brokerPort) is not 1…65535") }
        if let metrics {
            do { _ = try ListenAddress(parsing: metrics) } catch { throw ValidationError("--metrics \(error)") }
        }
        guard flushTimeout > 0, flushTimeout <= 3600 else { throw ValidationError("--flush-timeout \(flushTimeout) is not in (0, 3600] seconds") }
    }

    /// The flags that stand for config keys.
    var overrides: [ConfigOverride] {
        var list: [ConfigOverride] = []
        func add(_ path: [String], _ value: JSONValue?, _ flag: String) {
            if let value { list.append(ConfigOverride(path: path, value: value, flag: flag)) }
        }
        add(["gateway"], gateway.map(JSONValue.string), "--gateway")
        add(["store"], store.map { .int(Int64($0)) }, "--store")
        add(["section"], section.map { .int(Int64($0)) }, "--section")
        let login = broker.login
        add(["broker", "host"], (broker.host ?? brokerHost).map(JSONValue.string), broker.host == nil ? "--broker-host" : "--host")
        add(["broker", "port"], (broker.port ?? brokerPort).map { .int(Int64($0)) }, broker.port == nil ? "--broker-port" : "--port")
        add(["broker", "client_id"], broker.clientID.map(JSONValue.string), "--client-id")
        add(["broker", "mqtt_version"], broker.mqttVersion.map { .string($0.description) }, "--mqtt-version")
        add(["broker", "username"], login.username.map(JSONValue.string), "--username")
        add(["broker", "password_file"], login.passwordFile.map(JSONValue.string), "--password-file")
        add(["broker", "tls", "ca_file"], login.tlsCA.map(JSONValue.string), "--tls-ca")
        add(["broker", "tls", "cert_file"], login.tlsCert.map(JSONValue.string), "--tls-cert")
        add(["broker", "tls", "key_file"], login.tlsKey.map(JSONValue.string), "--tls-key")
        add(["scan", "adapter"], adapter.map(JSONValue.string), "--adapter")
        add(["allow_list", "ibeacon_uuids"], iBeaconUUIDs.isEmpty ? nil : .array(iBeaconUUIDs.map(JSONValue.string)), "--ibeacon-uuid")
        add(["allow_all"], allowAll ? .bool(true) : nil, "--allow-all")
        // Flags override keys: --allow-all replaces the file's allow-list rather than clashing with it.
        add(["allow_list"], allowAll && iBeaconUUIDs.isEmpty ? .object([]) : nil, "--allow-all")
        add(["batch_window_ms"], batchWindow.map { .int(Int64($0)) }, "--batch-window-ms")
        add(["buffer", "spill_file"], spillFile.map(JSONValue.string), "--spill-file")
        add(["topic_root"], topicRoot.map(JSONValue.string), "--topic-root")
        return list
    }

    func run() async throws {
        let level = logging.level
        logging.bootstrap()
        let edgeConfig: EdgeConfig
        do {
            edgeConfig = try EdgeConfig.load(file: config, overrides: overrides)
        } catch {
            throw ExitCode(.configError, saying: "\(error)")
        }
        if printConfig {
            print(edgeConfig.json.serialized(pretty: true))
            return
        }
        var logger = Logger(label: "beaconnet.edge")
        logger.logLevel = level
        logger[metadataKey: "gateway.id"] = "\(edgeConfig.gateway.rawValue)"

        let source = try await openSource(edgeConfig, logger: logger)
        // Before the runtime makes its counters: they are made through the bootstrapped factory.
        var alongside: [any Service] = []
        if let metrics, let endpoint = try? ListenAddress(parsing: metrics) {
            let export = PrometheusExport(help: EdgeCounters.metricHelp)
            export.bootstrap()
            alongside.append(MetricsExportService(endpoint: endpoint, export: export, logger: logger))
        }
        let runtime: EdgeRuntime
        do {
            runtime = try EdgeRuntime(
                config: edgeConfig, source: source, flushTimeout: .milliseconds(Int64(flushTimeout * 1000)), logLevel: level)
        } catch {
            throw ExitCode(.configError, saying: "\(error)")
        }
        try await run(runtime, alongside: alongside)
    }

    /// The capture of `--replay`, or the config's adapter, scanning: what the edge reads.
    func openSource(_ edgeConfig: EdgeConfig, logger: Logger) async throws -> EdgeRuntime.Source {
        guard let replay else {
            do {
                return .hci(try await HCIScanner.open(adapter: edgeConfig.scan.adapter, scan: edgeConfig.scan, logger: logger))
            } catch {
                throw ExitCode(.unavailable, saying: "\(error)")
            }
        }
        do {
            let file = try BtsnoopReplay.open(replay)
            let offset = rebaseTime ? BtsnoopReplay.rebasedOffset(for: file) : 0
            return .replay(file, path: replay, speed: BtsnoopReplay.Speed(speed) ?? .max, timeOffset: offset)
        } catch {
            throw ExitCode(.dataError, saying: "\(error)")
        }
    }

    /// Runs `runtime` to its end, and turns how it ended into the exit status.
    func run(_ runtime: EdgeRuntime, alongside: [any Service]) async throws {
        do {
            try await runtime.run(alongside: alongside)
        } catch let error as ReplayError {
            // The replay went as far as the capture did, and that much was published.
            throw ExitCode(.dataError, saying: "\(error)")
        } catch let error as MQTTError {
            // A port that answers with TLS: the session gave up (libmosquitto retries the rest).
            throw ExitCode(.unavailable, saying: BrokerFailure.message(error, runtime.session.client.configuration, role: "a gateway login (make-acl.sh --gateway ID:STORE)"))
        } catch let error as MetricsListenError {
            throw ExitCode(.unavailable, saying: ListenFailure.message(error.underlying ?? error, address: "\(error.endpoint)", flag: "--metrics"))
        } catch {
            let unavailable = error is HCIScannerError
            throw ExitCode(unavailable ? .unavailable : .internalFailure, saying: "stopped: \(error)")
        }
        let left = runtime.unflushedBatches
        if left > 0 {
            throw ExitCode(.temporaryFailure, saying: "\(left) batch(es) not acknowledged by the broker before the flush timeout")
        }
    }
}
