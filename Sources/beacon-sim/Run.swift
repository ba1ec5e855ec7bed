import ArgumentParser
import BeaconAggregator
import BeaconCommandLine
import BeaconCore
import BeaconEngine
import BeaconMQTT
import BeaconSim
import BeaconWire
import Foundation
import Logging

/// `beacon-sim run`: simulate and publish as every gateway to a broker (real time or compressed),
/// or write a `mosquitto_sub -v` style trace; always write the ground truth beside it. Publishing
/// rides out a broker restart (``ReconnectingPublisher``).
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Simulate shoppers and gateways; write the sightings trace and the ground truth.",
        discussion: """
            Publishing to a secured broker (the shipped central.conf) takes a simulator login, one that \
            may publish as every gateway (make-acl.sh --simulator NAME; for demos and load tests, never \
            on a production broker): --username NAME --password-file FILE, and --tls-ca CA for the TLS \
            listener. The client id is then the user name, as the shipped brokers require.

            A --config that fails validation, or lacks the floor polygons and gateway positions a \
            simulation needs, exits 78. An unreachable broker is retried; one that refuses the \
            connection, or is lost for good, ends it with 69, as does a broker that refuses the login, TLS or a publish (the reason on standard error).
            """)

    @Option(help: "Chain config with floor polygons (default: the generated 3 stores × 6 sections).")
    var config: String?

    @Option(help: "Write sightings as 'topic payload' lines here (instead of publishing).")
    var trace: String?

    /// With `--host`, where to publish (instead of writing a trace).
    @OptionGroup(title: "Broker (publishing, with --host)")
    var broker: BrokerOptions

    @OptionGroup
    var logging: LoggingOptions

    @Option(help: "Time compression when publishing: 1 (or 1x) is real time, 10 (or 10x) runs ten simulated seconds per second (give the aggregator --event-time).")
    var rate: TimeCompression = TimeCompression(factor: 1)

    @Option(help: "Event time of the start, Unix ms (default: now when publishing, a fixed date for traces).")
    var start: Int64?

    @Option(help: "Write the ground truth (JSON lines) here.")
    var truth: String

    @Option(help: "Simulated seconds.")
    var duration: Double = 600

    @Option(help: "Random seed: the same seed gives the same run.")
    var seed: UInt64 = 1

    @OptionGroup(title: "People and radio")
    var simulated: SimulationOptions

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    func validate() throws {
        guard (trace == nil) != (broker.host == nil) else { throw ValidationError("give either --trace FILE or --host HOST") }
        guard (0.001...1000).contains(rate.factor) else { throw ValidationError("--rate \(rate.factor) is not 0.001…1000") }
        if let start, !Evaluate.plausibleTimes.contains(start) { throw ValidationError("--start \(start) is not a Unix ms time between 2000 and 2100") }
        guard duration >= 1, duration <= 31_536_000, duration.rounded() == duration else {
            throw ValidationError("--duration \(duration) is not a whole number of seconds within 1…31536000 (a year; the simulator steps in 1 s batch windows)")
        }
        guard broker.host != nil || !broker.isGiven else {
            throw ValidationError("--port, --username, --password-file, --tls-ca, --tls-cert, --tls-key and --client-id are for publishing: give them with --host, not --trace")
        }
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
    }

    func run() async throws {
        logging.bootstrap()
        // Before anything is written: a password file that cannot be read is a config error.
        let mqtt = try broker.host.map { _ in try broker.configuration(defaultClientID: broker.login.username ?? "beacon-sim-\(seed)") }
        let chain = try loadChain(config)
        var settings = SimulationConfig()
        settings.duration = duration
        settings.seed = seed
        simulated.apply(to: &settings)
        if let start { settings.start = start } else if mqtt != nil { settings.start = Int64(Date().timeIntervalSince1970 * 1000) }
        var simulation: Simulation
        do { simulation = try Simulation(chain: chain, config: settings) } catch {
            throw ExitCode(.configError, saying: "\(config ?? "the default chain"): \(error)")
        }
        let scheme = try TopicScheme(root: topicRoot)
        do {
            try await simulate(&simulation, chain: chain, settings: settings, scheme: scheme, mqtt: mqtt)
        } catch let error as MQTTError {
            throw ExitCode(.unavailable, saying: mqtt.map { BrokerFailure.message(error, $0, role: Self.simulatorRole) } ?? "\(error)")
        }
    }

    /// Runs the simulation window by window into the trace or, with `mqtt`, the broker, writing
    /// the truth.
    func simulate(_ simulation: inout Simulation, chain: Chain, settings: SimulationConfig, scheme: TopicScheme,
                  mqtt: MQTTConfiguration?) async throws {
        guard FileManager.default.createFile(atPath: truth, contents: nil), let truthOut = FileHandle(forWritingAtPath: truth) else {
            throw ValidationError(FileProblem.cannotWrite(truth, flag: "--truth"))
        }
        defer { try? truthOut.close() }
        let sink = try await openSink(mqtt)
        var sightings = 0
        let clock = ContinuousClock()
        let began = clock.now
        let windows = Int(duration / settings.batchWindow)
        for w in 0..<windows {
            let (batches, changes) = simulation.nextWindow()
            if case .broker = sink {
                // Keep pace: window w ends at began + (w+1)·window/rate.
                try await Task.sleep(until: began + .milliseconds(Int64(Double(w + 1) * settings.batchWindow * 1000 / rate.factor)), clock: clock)
            }
            var text = ""
            for b in batches {
                let batch = SightingBatch(gateway: b.gateway, sequence: b.seq, sent: b.sent, sightings: b.sightings.map {
                    Sighting(device: $0.device, time: $0.time, rssi: $0.rssi, txPower: $0.measuredPower)
                })
                sightings += b.sightings.count
                let topic = scheme.string(for: .sightings(store: b.store, gateway: b.gateway))
                switch sink {
                case .trace: text += topic + " " + String(decoding: batch.encoded(), as: UTF8.self) + "\n"
                case .broker(let publisher):
                    do {
                        try await publisher.publish(to: topic, payload: batch.encoded())
                    } catch let MQTTError.notAuthorized(reason) {
                        // A login the broker took, without the right to publish as this gateway.
                        throw ExitCode(.unavailable, saying: BrokerFailure.refusal(of: topic, reason: reason, publisher.client.configuration, role: Self.simulatorRole))
                    }
                }
            }
            if case .trace(let out) = sink { try out.write(contentsOf: Data(text.utf8)) }
            if !changes.isEmpty {
                try truthOut.write(contentsOf: Data(changes.map { TruthFile.line($0) + "\n" }.joined().utf8))
            }
        }
        try truthOut.write(contentsOf: Data((TruthFile.endLine(simulation.now) + "\n").utf8))
        switch sink {
        case .trace(let out): try? out.close()
        case .broker(let publisher): await publisher.disconnect()
        }
        print("beacon-sim: \(Int(duration)) s simulated, \(chain.stores.count) stores, \(chain.gateways.count) gateways, \(sightings) sightings → \(trace ?? "\(broker.resolvedHost):\(broker.resolvedPort)"); truth → \(truth)")
        if mqtt != nil {
            // Publishing waits for each acknowledgement: a slow broker or machine falls behind the
            // pace asked for, and the run should say so rather than pass for the rate it was given.
            let elapsed = Double((clock.now - began).components.seconds) + Double((clock.now - began).components.attoseconds) / 1e18
            let achieved = duration / max(elapsed, 1e-9)
            if achieved < rate.factor * 0.9 {
                print("beacon-sim: fell behind: \(String(format: "%.1f", elapsed)) s of wall time for \(Int(duration)) simulated seconds, \(String(format: "%.2f", achieved))× real time instead of the \(rate.factor)× asked for")
            }
        }
    }

    /// The trace file, or the broker connected with `mqtt`.
    func openSink(_ mqtt: MQTTConfiguration?) async throws -> BatchSink {
        if let trace {
            guard FileManager.default.createFile(atPath: trace, contents: nil), let out = FileHandle(forWritingAtPath: trace) else {
                throw ValidationError(FileProblem.cannotWrite(trace, flag: "--trace"))
            }
            return .trace(out)
        }
        guard let mqtt else { preconditionFailure("validate() lets through --trace or --host, never neither") }
        do {
            return .broker(try await ReconnectingPublisher.connect(mqtt, logger: Logger(label: "beaconnet.sim")))
        } catch {
            throw ExitCode(.unavailable, saying: BrokerFailure.message(error, mqtt, role: Self.simulatorRole))
        }
    }

    /// `--rate`: a factor, written `10` or `10x`.
    struct TimeCompression: ExpressibleByArgument {
        var factor: Double
        init(factor: Double) { self.factor = factor }
        init?(argument: String) {
            let text = argument.hasSuffix("x") || argument.hasSuffix("X") ? String(argument.dropLast()) : argument
            guard let factor = Double(text) else { return nil }
            self.factor = factor
        }
        var defaultValueDescription: String { "\(factor)" }
    }

    /// The login `run` and `load` need.
    static let simulatorRole = "a simulator login (make-acl.sh --simulator NAME)"

    enum BatchSink {
        case trace(FileHandle)
        case broker(ReconnectingPublisher)
    }
}

/// The chain at `path`, or the default one; one that fails validation ends the program with
/// ``ExitStatus/configError``.
func loadChain(_ path: String?) throws -> Chain {
    do {
        return try (path.map { try ChainConfig.load(path: $0) } ?? DefaultChain.config()).resolve()
    } catch let error as ConfigError {
        throw ExitCode(.configError, saying: error.description)
    }
}
