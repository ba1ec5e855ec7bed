import ArgumentParser
import BeaconAggregator
import BeaconCore
import BeaconSim
import BeaconWire
import Foundation

/// `beacon-sim run`: simulate and write a `mosquitto_sub -v` style trace (publishing to a broker
/// comes with the demo), always with the ground truth beside it.
struct Run: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Simulate shoppers and gateways; write the sightings trace and the ground truth.")

    @Option(help: "Chain config with floor polygons (default: the generated 3 stores × 6 sections).")
    var config: String?

    @Option(help: "Write sightings as 'topic payload' lines here.")
    var trace: String

    @Option(help: "Write the ground truth (JSON lines) here.")
    var truth: String

    @Option(help: "Simulated seconds.")
    var duration: Double = 600

    @Option(help: "Random seed: the same seed gives the same run.")
    var seed: UInt64 = 1

    @Option(help: "Mean seconds between shopper arrivals per store.")
    var arrivalInterval: Double = 20

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    func run() async throws {
        let chain = try loadChain(config)
        var settings = SimulationConfig()
        settings.duration = duration
        settings.seed = seed
        settings.arrivalInterval = arrivalInterval
        var simulation = try Simulation(chain: chain, config: settings)
        let scheme = try TopicScheme(root: topicRoot)
        guard FileManager.default.createFile(atPath: trace, contents: nil), FileManager.default.createFile(atPath: truth, contents: nil),
              let traceOut = FileHandle(forWritingAtPath: trace), let truthOut = FileHandle(forWritingAtPath: truth)
        else { throw ValidationError("cannot write \(trace) or \(truth)") }
        defer {
            try? traceOut.close()
            try? truthOut.close()
        }
        var sightings = 0
        for _ in 0..<Int(duration / settings.batchWindow) {
            let (batches, changes) = simulation.nextWindow()
            var text = ""
            for b in batches {
                let batch = SightingBatch(gateway: b.gateway, sequence: b.seq, sent: b.sent, sightings: b.sightings.map {
                    Sighting(device: $0.device, time: $0.time, rssi: $0.rssi, txPower: $0.measuredPower)
                })
                sightings += b.sightings.count
                text += scheme.string(for: .sightings(store: b.store, gateway: b.gateway)) + " "
                text += String(decoding: batch.encoded(), as: UTF8.self) + "\n"
            }
            try traceOut.write(contentsOf: Data(text.utf8))
            if !changes.isEmpty {
                try truthOut.write(contentsOf: Data(changes.map { TruthFile.line($0) + "\n" }.joined().utf8))
            }
        }
        print("beacon-sim: \(Int(duration)) s simulated, \(chain.stores.count) stores, \(chain.gateways.count) gateways, \(sightings) sightings → \(trace); truth → \(truth)")
    }
}

func loadChain(_ path: String?) throws -> Chain {
    do {
        return try (path.map { try ChainConfig.load(path: $0) } ?? DefaultChain.config()).resolve()
    } catch let error as ConfigError {
        throw ValidationError(error.description)
    }
}
