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

/// `beacon-sim load`: publishes chain-scale synthetic traffic at a target rate (every gateway of N
/// stores, M devices heard by 4 gateways each) and prints the rate it achieved — for load tests,
/// soaks and capacity planning.
struct Load: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Publish N stores × M devices at a target sightings/s; print what was achieved.",
        discussion: """
            A secured broker takes a simulator login, as for run (make-acl.sh --simulator NAME): \
            --username, --password-file, --tls-ca. The first batch goes at QoS 1, so that a login \
            without the right to publish fails at once (exit 69) rather than run on into a broker that \
            drops everything; the rest at QoS 0.

            A broker that cannot be reached, refuses the connection or is lost during the run exits 69.
            """)

    @Option(help: "Stores (the default layout, majors from 101).")
    var stores = 100

    @Option(help: "Devices, spread over the stores.")
    var devices = 10_000

    @Option(help: "Target sightings per second (all gateways together).")
    var rate: Double = 40_000

    @Option(help: "Seconds to run.")
    var duration = 60

    @OptionGroup(title: "Broker")
    var broker: BrokerOptions

    @OptionGroup
    var logging: LoggingOptions

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    @Option(help: "Write the chain config the traffic is for here (give it to beacon-aggregator).")
    var chainOut: String?

    func validate() throws {
        guard (1...1000).contains(stores), (1...1_000_000).contains(devices), rate > 0, rate <= 100_000_000, (1...31_536_000).contains(duration) else {
            throw ValidationError("--stores 1…1000, --devices 1…1 000 000, --rate in (0, 1e8], --duration 1…31536000")
        }
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
    }

    func run() async throws {
        logging.bootstrap()
        // Before anything is written: a password file that cannot be read is a config error.
        let mqtt = try broker.configuration(defaultClientID: broker.login.username ?? "beacon-sim-load-\(UInt32.random(in: 0...UInt32.max))")
        do {
            try await load(mqtt)
        } catch let error as MQTTError {
            throw ExitCode(.unavailable, saying: BrokerFailure.message(error, mqtt, role: Run.simulatorRole))
        }
    }

    /// Publishes the traffic to the broker of `mqtt`, reporting the achieved rate every 10 s.
    func load(_ mqtt: MQTTConfiguration) async throws {
        let config = DefaultChain.config(stores: stores)
        if let chainOut {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            do { try encoder.encode(config).write(to: URL(fileURLWithPath: chainOut)) } catch {
                throw ValidationError(FileProblem.cannotWrite(chainOut, flag: "--chain-out"))
            }
        }
        let chain = try config.resolve()
        let links = Double(devices * min(4, chain.stores[0].gateways.count))
        var generator = try LoadGenerator(chain: chain, devices: devices, advertsPerSecond: rate / links,
                                          start: Int64(Date().timeIntervalSince1970 * 1000))
        let scheme = try TopicScheme(root: topicRoot)
        let client = MQTTClient(configuration: mqtt, logger: Logger(label: "beaconnet.sim.load"))
        do {
            try await client.connect()
        } catch {
            throw ExitCode(.unavailable, saying: BrokerFailure.message(error, mqtt, role: Run.simulatorRole))
        }
        print("beacon-sim load: \(stores) stores, \(chain.gateways.count) gateways, \(devices) devices; target \(Int(rate)) sightings/s for \(duration) s")
        let clock = ContinuousClock()
        let began = clock.now
        var sent = 0, lastReport = 0, behind = 0
        // Whether the broker has taken a batch at QoS 1, which says whether this login may publish.
        var acknowledged = false
        var lastTime = 0.0
        for second in 0..<duration {
            for b in generator.nextWindow() {
                let batch = b.sightingBatch
                let topic = scheme.string(for: .sightings(store: b.store, gateway: b.gateway))
                do {
                    try await client.publish(to: topic, payload: batch.encoded(), qos: acknowledged ? .atMostOnce : .atLeastOnce, retain: false)
                    acknowledged = true
                } catch {
                    guard case .notAuthorized(let reason) = error else { throw error }
                    throw ExitCode(.unavailable, saying: BrokerFailure.refusal(of: topic, reason: reason, mqtt, role: Run.simulatorRole))
                }
                sent += b.sightings.count
            }
            let due = began + .seconds(second + 1)
            if clock.now < due { try await Task.sleep(until: due, clock: clock) } else { behind += 1 }
            if (second + 1) % 10 == 0 || second + 1 == duration {
                let elapsed = clock.now - began
                let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
                // Rates over the wall time they took: windows that could not be sent in their
                // second make the interval longer, and the last interval may be shorter than 10 s.
                let interval = seconds - lastTime
                let windows = (second + 1) - (second + 1 - 1) / 10 * 10
                print("  \(second + 1) s: \(Int(Double(sent - lastReport) / max(interval, 1e-9))) sightings/s over the last \(windows) window(s) (\(String(format: "%.1f", interval)) s of wall time), \(Int(Double(sent) / seconds)) overall\(behind > 0 ? "; \(behind) window(s) sent late" : "")")
                lastReport = sent
                lastTime = seconds
            }
        }
        await client.disconnect()
        print("beacon-sim load: sent \(sent) sightings; \(behind == 0 ? "kept the target rate" : "could not keep the target rate: \(behind) window(s) sent late, \(Int(Double(sent) / max(Double((clock.now - began).components.seconds), 1))) sightings/s overall")")
    }
}
