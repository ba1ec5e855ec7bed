import ArgumentParser
import BeaconAggregator
import BeaconCommandLine
import BeaconCore
import BeaconEngine
import BeaconSim
import BeaconWire
import Foundation

/// `beacon-sim import`: turns a shared real dataset into what `beacon-aggregator replay` and
/// `beacon-sim evaluate` read — per run and for all runs end to end, a chain config, a trace of
/// edge batches and a truth file (docs/TRUTH.md, "Real recordings").
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Turn a real dataset into chain, trace and truth files, per run and all runs end to end.",
        discussion: """
            Writes OUTPUT/<run>/{chain.json,trace.txt,truth.jsonl} and OUTPUT/all/ (every run, a gap apart). Then:
              beacon-aggregator replay --config OUTPUT/all/chain.json OUTPUT/all/trace.txt > events.txt
              beacon-sim evaluate --truth OUTPUT/all/truth.jsonl --events events.txt --wide
            A dataset folder or --zones file that cannot be read or is malformed exits 65.
            """)

    /// The datasets this imports.
    enum Dataset: String, ExpressibleByArgument, CaseIterable {
        case kolakowski, salrb
    }

    @Option(help: "The dataset: kolakowski (datasets/kolakowski_ble_flat_calib2021) or salrb (datasets/sal_rb_vehicle_zones).")
    var dataset: Dataset

    @Argument(help: "The dataset's folder.")
    var folder: String

    @Option(help: "Where to write (created; files of the same names are replaced).")
    var output: String

    @Option(help: "kolakowski: the sections: anchors (each anchor's cell of the flat), rooms (a proposal read off layout.csv), or a zoning JSON file (docs/TRUTH.md).")
    var zones = "anchors"

    @Option(help: "salrb: the sniffers outside the chamber: store (a second store, 'outside lane', where label 0 is) or none (dropped; label 0 is outside every store).")
    var outside = SALRBImporter.Outside.store.rawValue

    @Option(help: "Seconds between runs laid end to end in all/ (unscored; the gateways keep sending empty batches), 1…3600.")
    var gap = 60

    @Option(help: "Decision rule written into the chain's tuning: \(Tuning.Rule.allCases.map(\.rawValue).joined(separator: ", ")).")
    var rule = Tuning().rule.rawValue

    @Option(help: "Topic root of the trace.")
    var topicRoot = "beaconnet"

    func validate() throws {
        guard (1...3600).contains(gap) else { throw ValidationError("--gap \(gap) is not 1…3600 seconds") }
        guard Tuning.Rule(rawValue: rule) != nil else { throw ValidationError("--rule must be one of \(Tuning.Rule.allCases.map(\.rawValue))") }
        guard SALRBImporter.Outside(rawValue: outside) != nil else { throw ValidationError("--outside must be store or none") }
    }

    func run() throws {
        var tuning = Tuning()
        tuning.rule = Tuning.Rule(rawValue: rule)!
        let imported: ImportedDataset
        do {
            switch dataset {
            case .kolakowski:
                let choice: KolakowskiImporter.Zones
                switch zones {
                case "anchors": choice = .anchors
                case "rooms": choice = .rooms
                default: choice = .custom(try Zoning.load(path: zones), source: zones)
                }
                imported = try KolakowskiImporter.importDataset(folder: folder, zones: choice, tuning: tuning)
            case .salrb:
                imported = try SALRBImporter.importDataset(folder: folder, outside: SALRBImporter.Outside(rawValue: outside)!, tuning: tuning)
            }
        } catch {
            throw ExitCode(.dataError, saying: "\(error)")
        }
        let written: [DatasetWriter.Written]
        do {
            written = try DatasetWriter.write(imported, to: output, gap: Int64(gap) * 1000, scheme: try TopicScheme(root: topicRoot))
        } catch {
            throw ValidationError(FileProblem.isFileSystemError(error) ? FileProblem.cannotWrite(output, flag: "--output", error: error) : "--output \(output): \(error)")
        }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        print("beacon-sim import: \(imported.name), \(imported.runs.count) runs → \(output)")
        print("run                            rows  readings  batches  truth lines  starts at")
        for (w, run) in zip(written, imported.runs + [nil]) {
            let rows = run.map { String($0.rows) } ?? String(imported.runs.reduce(0) { $0 + $1.rows })
            print(w.name.padding(toLength: 28, withPad: " ", startingAt: 0) + [
                rows.leftPadded(6), String(w.recording.sightings).leftPadded(9), String(w.recording.batches.count).leftPadded(8),
                String(w.recording.truth.count).leftPadded(12),
                "  " + formatter.string(from: Date(timeIntervalSince1970: Double(w.start) / 1000))
                    + (w.shift.map { $0 == 0 ? "" : " (moved \($0 / 1000) s from \(run!.source.split(separator: "/").last!))" } ?? ""),
            ].joined(separator: " "))
        }
        for note in imported.notes { print("note: \(note)") }
    }
}

extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: " ", count: width - count) + self
    }
}
