import ArgumentParser
import BeaconCommandLine
import BeaconEngine
import BeaconSim
import Foundation

/// `beacon-sim quality`: the location-quality table on the shared real datasets — every
/// uncalibrated rule, and the calibrated one held out, as the walking tag and as louder and
/// quieter phones, and the truth itself scored beside them (docs/TUNING.md, "The quality table"). In
/// process; about half a minute.
struct Quality: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the location-quality table on the shared real datasets (in process).")

    @Option(help: "The shared datasets' folder (holding kolakowski_ble_flat_calib2021 and sal_rb_vehicle_zones).")
    var data = "../shared/testdata/datasets"

    @Option(help: "Only these datasets (comma-separated): kolakowski rooms, kolakowski cells, salrb zones, salrb zones+lane.")
    var datasets: String?

    @Option(help: "Device offsets to score the calibrated rule at, dB against the walking tag (comma-separated).")
    var offsets = "0,-6,6"

    @Option(help: "Tuning keys to try instead of each dataset's, as a JSON object (the rule is set per row).")
    var tuning: String?

    @Option(help: "Simulator seeds whose shoppers are scored against one tag's calibration walk (comma-separated; empty: none).")
    var seeds = "11,12,13"

    @Flag(help: "Instead of the table: how often section enters were right by the confidence they claimed, per dataset (the default over every run, the calibrated rule held out, pooled over --offsets) and the simulator's seeds pooled; each with the map that would make the claims honest.")
    var confidence = false

    func run() throws {
        let offsets = try offsets.split(separator: ",").map {
            guard let v = Int($0.trimmingCharacters(in: .whitespaces)), (-30...30).contains(v) else {
                throw ValidationError("--offsets: \($0) is not a whole number of dB within -30…30")
            }
            return v
        }
        let names = datasets.map { Set($0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }) }
        let entries: [QualityTable.Dataset]
        do {
            entries = try QualityTable.datasets(in: data, names: names)
        } catch {
            throw ExitCode(.dataError, saying: "cannot read the datasets in \(data): \(error)")
        }
        let seeds = try seeds.split(separator: ",").map {
            guard let v = UInt64($0.trimmingCharacters(in: .whitespaces)) else { throw ValidationError("--seeds: \($0) is not a seed") }
            return v
        }
        if confidence {
            try printConfidence(entries, seeds: seeds, offsets: offsets)
            return
        }
        print(QualityTable.header)
        for entry in entries {
            let overlay = try tuning.map { try Self.tuning($0, over: entry.dataset.chain) }
            for row in try QualityTable.rows(entry, tuning: overlay, offsets: offsets) { print(row) }
        }
        if !seeds.isEmpty {
            let chain = DefaultChain.config()
            let overlay = try tuning.map { try Self.tuning($0, over: chain) }
            for row in try QualityTable.simulatorRows(seeds: seeds, tuning: overlay) { print(row) }
        }
    }

    /// The `--confidence` tables, block by block; then, per rule, each source (the Kolakowski
    /// flat, the SAL-RB chamber, the simulator) left out in turn.
    func printConfidence(_ entries: [QualityTable.Dataset], seeds: [UInt64], offsets: [Int]) throws {
        var blocks: [(name: String, tables: (default: ConfidenceReliability, calibrated: ConfidenceReliability))] = []
        for entry in entries {
            let overlay = try tuning.map { try Self.tuning($0, over: entry.dataset.chain) }
            blocks.append((entry.name, try QualityTable.confidence(entry, tuning: overlay, offsets: offsets)))
        }
        if !seeds.isEmpty {
            let overlay = try tuning.map { try Self.tuning($0, over: DefaultChain.config()) }
            blocks.append(("simulator " + seeds.map(String.init).joined(separator: ","),
                           try QualityTable.simulatorConfidence(seeds: seeds, tuning: overlay)))
        }
        for block in blocks {
            print("\(block.name), hysteresis:")
            block.tables.default.lines.forEach { print("  " + $0) }
            print("\(block.name), fingerprint:")
            block.tables.calibrated.lines.forEach { print("  " + $0) }
        }
        let sources = Dictionary(grouping: blocks) { String($0.name.split(separator: " ").first ?? "") }
        guard sources.count > 1 else { return }
        print("")
        print("each source left out: log loss per enter as claimed, through the map fitted on the other sources (each counting once)")
        for (rule, claims) in [("hysteresis", { (b: (default: ConfidenceReliability, calibrated: ConfidenceReliability)) in b.default.claims }),
                               ("fingerprint", { $0.calibrated.claims })] {
            let bySource = sources.mapValues { $0.flatMap { claims($0.tables) } }
            if let all = ConfidenceMap.fit(groups: Array(bySource.values)) {
                print(String(format: "  %@, every source: σ(%.2f × log-odds %+.2f)", rule, all.slope, all.intercept))
            }
            for (source, held) in bySource.sorted(by: { $0.key < $1.key }) where !held.isEmpty {
                let others = bySource.filter { $0.key != source }.map(\.value)
                guard let map = ConfidenceMap.fit(groups: others) else { continue }
                print(String(format: "  %@, %@ left out (%d enters): %.3f as claimed, %.3f through σ(%.2f × log-odds %+.2f)",
                             rule, source, held.count, ConfidenceMap.identity.logLoss(held), map.logLoss(held), map.slope, map.intercept))
            }
        }
    }

    /// `json`'s keys over `chain`'s tuning, checked as the chain config's are.
    static func tuning(_ json: String, over chain: ChainConfig) throws -> Tuning {
        do {
            let bytes = try JSONEncoder().encode(chain)
            return try ChainConfig.load(contents: Array(bytes), file: "--tuning", tuning: json).tuning
        } catch {
            throw ExitCode(.usage, saying: "--tuning: \(error)")
        }
    }
}
