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

            Publishing, it gives every gateway a retained status as real edges do \
            (<root>/gateways/<gw>/status): online at the start, offline at a clean end (its \
            --duration, SIGTERM or SIGINT; a second signal ends it at once). Its one connection \
            cannot carry a Last Will per gateway: after a crash they stay online until the \
            aggregator's silence limit counts them offline.

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
    /// the truth. Publishing, it announces every gateway `online` first and `offline` at the end.
    /// SIGTERM or SIGINT ends it early, cleanly: the truth's end and the statuses are written
    /// (``StopRequest``).
    func simulate(_ simulation: inout Simulation, chain: Chain, settings: SimulationConfig, scheme: TopicScheme,
                  mqtt: MQTTConfiguration?) async throws {
        guard FileManager.default.createFile(atPath: truth, contents: nil), let truthOut = FileHandle(forWritingAtPath: truth) else {
            throw ValidationError(FileProblem.cannotWrite(truth, flag: "--truth"))
        }
        defer { try? truthOut.close() }
        let sink = try await openSink(mqtt)
        let statuses = GatewayStatusPublisher(chain: chain, scheme: scheme)
        if case .broker(let publisher) = sink { try await send(statuses.statuses(.online, at: settings.start), retained: true, via: publisher) }
        let stop = StopRequest()
        var progress = Progress()
        let clock = ContinuousClock()
        let began = clock.now
        let windows = Int(duration / settings.batchWindow)
        try await stop.trapping {
            for w in 0..<windows {
                if stop.isRequested { break }
                let (batches, changes) = simulation.nextWindow()
                if case .broker = sink {
                    // Keep pace: window w ends at began + (w+1)·window/rate.
                    try await Task.sleep(until: began + .milliseconds(Int64(Double(w + 1) * settings.batchWindow * 1000 / rate.factor)), clock: clock)
                }
                progress.sightings += try await write(batches, to: sink, scheme: scheme)
                progress.simulated += settings.batchWindow
                if !changes.isEmpty {
                    try truthOut.write(contentsOf: Data(changes.map { TruthFile.line($0) + "\n" }.joined().utf8))
                }
            }
        }
        try truthOut.write(contentsOf: Data((TruthFile.endLine(simulation.now) + "\n").utf8))
        switch sink {
        case .trace(let out): try? out.close()
        case .broker(let publisher):
            try await send(statuses.statuses(.offline, at: simulation.now), retained: true, via: publisher)
            await publisher.disconnect()
        }
        report(progress, chain: chain, stoppedBy: stop.reason, elapsed: clock.now - began, publishing: mqtt != nil)
    }

    /// How far a run got.
    struct Progress {
        /// Seconds simulated.
        var simulated: Double = 0
        /// Sightings written or published.
        var sightings = 0
    }

    /// Writes one window's `batches` to the trace or publishes them; returns how many sightings
    /// they held.
    func write(_ batches: [SimulatedBatch], to sink: BatchSink, scheme: TopicScheme) async throws -> Int {
        var text = ""
        var messages: [(topic: String, payload: [UInt8])] = []
        var sightings = 0
        for b in batches {
            let batch = b.sightingBatch
            sightings += b.sightings.count
            let topic = scheme.string(for: .sightings(store: b.store, gateway: b.gateway))
            switch sink {
            case .trace: text += topic + " " + String(decoding: batch.encoded(), as: UTF8.self) + "\n"
            case .broker: messages.append((topic, batch.encoded()))
            }
        }
        switch sink {
        case .trace(let out): try out.write(contentsOf: Data(text.utf8))
        case .broker(let publisher): try await send(messages, retained: false, via: publisher)
        }
        return sightings
    }

    /// Publishes `messages` in order. A login the broker took, without the right to publish as
    /// these gateways, ends the run (exit 69) naming the topic and the login.
    func send(_ messages: [(topic: String, payload: [UInt8])], retained: Bool, via publisher: ReconnectingPublisher) async throws {
        for (topic, payload) in messages {
            do {
                try await publisher.publish(to: topic, payload: payload, retain: retained)
            } catch let MQTTError.notAuthorized(reason) {
                throw ExitCode(.unavailable, saying: BrokerFailure.refusal(of: topic, reason: reason, publisher.client.configuration, role: Self.simulatorRole))
            }
        }
    }

    /// The run's last lines: what it simulated, where to, and whether it kept the pace asked for.
    func report(_ progress: Progress, chain: Chain, stoppedBy signal: String?, elapsed: Duration, publishing: Bool) {
        let early = signal.map { ", stopped early by \($0)" } ?? ""
        print("beacon-sim: \(Int(progress.simulated)) s simulated\(early), \(chain.stores.count) stores, \(chain.gateways.count) gateways, \(progress.sightings) sightings → \(trace ?? "\(broker.resolvedHost):\(broker.resolvedPort)"); truth → \(truth)")
        guard publishing else { return }
        // Publishing waits for each acknowledgement: a slow broker or machine falls behind the
        // pace asked for, and the run should say so rather than pass for the rate it was given.
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let achieved = progress.simulated / max(seconds, 1e-9)
        if progress.simulated > 0, achieved < rate.factor * 0.9 {
            print("beacon-sim: fell behind: \(String(format: "%.1f", seconds)) s of wall time for \(Int(progress.simulated)) simulated seconds, \(String(format: "%.2f", achieved))× real time instead of the \(rate.factor)× asked for")
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
