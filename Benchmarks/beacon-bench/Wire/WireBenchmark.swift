import ArgumentParser
import BeaconWire
import Foundation

/// `beacon-bench wire`: sighting-batch decoding throughput on one thread, BeaconWire against a
/// bare json-c walk (the ceiling) and Foundation's JSONDecoder (the alternative).
struct WireBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wire",
        abstract: "Decode 50-sighting batches: bare json-c vs BeaconWire vs Foundation JSONDecoder.",
        discussion: """
            Target (wire issue): BeaconWire decodes at least 800 000 sightings/s on one core and at \
            least 3x Foundation's JSONDecoder on the same bytes. Each decoder runs --rounds times \
            for --seconds each, interleaved, each time in a forked child so that every \
            measurement starts from the same heap; the best round is the one least disturbed by \
            other load on the machine, the median shows how much that load moved the figures.
            """)

    @Option(help: "Distinct batches to generate and cycle through.")
    var batches = 200

    @Option(help: "Seconds per decoder per round.")
    var seconds = 2.0

    @Option(help: "Rounds; the best and the median round of each decoder are reported.")
    var rounds = 5

    @Option(help: "Time only this decoder (bare, wire or foundation), e.g. under perf.")
    var only: Decoder?

    /// The decoders compared.
    enum Decoder: String, ExpressibleByArgument, CaseIterable, Hashable {
        case bare, wire, foundation
    }

    func validate() throws {
        guard batches > 0, seconds > 0, rounds > 0 else {
            throw ValidationError("--batches, --seconds and --rounds must be positive")
        }
    }

    func run() throws {
        let corpus = BatchCorpus(batches: batches)
        let perBatch = corpus.sightingsPerBatch
        let datas = corpus.payloads.map { Data($0) }
        print("beacon-bench wire — \(Self.timestamp()) — \(machineArchitecture())")
        print(allocatorDescription())
        print("\(batches) batches × \(perBatch) sightings, average payload \(Int(corpus.averageSize.rounded())) bytes")

        // Check that all three agree on the corpus before timing anything.
        let wire = WireDecoder()
        let bare = BareJSONC()
        let json = JSONDecoder()
        for (bytes, data) in zip(corpus.payloads, datas) {
            let decoded = try wire.decode(SightingBatch.self, from: bytes)
            let mirror = try json.decode(BatchMirror.self, from: data)
            guard decoded.sightings.count == perBatch, mirror.sightings.count == perBatch,
                bare.walk(bytes).items == perBatch,
                zip(decoded.sightings, mirror.sightings).allSatisfy({ $0.device.rawValue == $1.dev && $0.rssi == $1.rssi })
            else { throw ValidationError("decoders disagree on the corpus") }
        }

        var rates: [Decoder: [Double]] = [:]
        var checksum = 0
        for round in 1...rounds {
            let bareRate = measure(.bare) {
                var items = 0, sum = 0
                for payload in corpus.payloads {
                    let walked = bare.walk(payload)
                    items += walked.items
                    sum &+= walked.checksum
                }
                return (items, sum)
            }
            let wireRate = measure(.wire) {
                var items = 0, sum = 0
                for payload in corpus.payloads {
                    guard let batch = try? wire.decode(SightingBatch.self, from: payload) else { continue }
                    items += batch.sightings.count
                    sum &+= batch.sightings[0].rssi
                }
                return (items, sum)
            }
            let foundationRate = measure(.foundation) {
                var items = 0, sum = 0
                for data in datas {
                    guard let batch = try? json.decode(BatchMirror.self, from: data) else { continue }
                    items += batch.sightings.count
                    sum &+= batch.sightings[0].rssi
                }
                return (items, sum)
            }
            checksum &+= bareRate.checksum &+ wireRate.checksum &+ foundationRate.checksum
            print("round \(round): bare \(formatRate(bareRate.rate)), BeaconWire \(formatRate(wireRate.rate)), Foundation \(formatRate(foundationRate.rate))")
            for (decoder, rate) in [(Decoder.bare, bareRate.rate), (.wire, wireRate.rate), (.foundation, foundationRate.rate)] where rate.isFinite {
                rates[decoder, default: []].append(rate)
            }
        }

        let best = rates.mapValues { $0.max() ?? .nan }
        let median = rates.mapValues { values in values.sorted()[values.count / 2] }
        print("")
        print("decoder (one thread)      best sightings/s  median sightings/s  batches/s (best)")
        for (decoder, name) in [(Decoder.bare, "bare json-c (baseline)"), (.wire, "BeaconWire"), (.foundation, "Foundation JSONDecoder")] {
            let top = best[decoder] ?? .nan
            print(name.padding(toLength: 24, withPad: " ", startingAt: 0)
                + formatRate(top).leftPadded(18) + formatRate(median[decoder] ?? .nan).leftPadded(20)
                + (top.isFinite ? String(Int(top / Double(perBatch))) : "—").leftPadded(18))
        }
        print("")
        let wireBest = best[.wire] ?? .nan
        print("BeaconWire / Foundation   \(ratio(wireBest, best[.foundation]))   (target ≥ 3×)")
        print("BeaconWire / bare json-c  \(ratio(wireBest, best[.bare]))")
        print("BeaconWire ≥ 800 000/s    \(wireBest >= 800_000 ? "yes" : "no")")
        if checksum == 42 { print("") }  // keeps the measured work observable
    }

    private func ratio(_ numerator: Double, _ denominator: Double?) -> String {
        guard let denominator, numerator.isFinite, denominator.isFinite, denominator > 0 else { return "—" }
        return String(format: "%.2f×", numerator / denominator)
    }

    private func measure(_ decoder: Decoder, _ body: () -> (items: Int, checksum: Int)) -> (rate: Double, checksum: Int) {
        guard only == nil || only == decoder else { return (.nan, 0) }
        return isolated { throughput(seconds: seconds, body) }
    }

    private static func timestamp() -> String {
        Date().formatted(.iso8601)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
