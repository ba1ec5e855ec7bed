import BeaconSim
import FuzzSupport

/// A ground-truth file as `beacon-sim evaluate` and `beacon-aggregator calibrate` read it (lines,
/// JSON, keys, times, ids, places). Properties: no trap; every change read writes (as
/// `beacon-sim run` writes truth lines) to a line that reads back to the same change.
@main
enum FuzzTruth {
    static func main() { runFuzzer(testOneInput) }

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = Array(inputBytes(data, size))
        guard let (changes, _) = try? TruthFile.parse(bytes, file: "truth.jsonl") else { return 0 }
        for (_, change) in changes {
            let line = TruthFile.line(change)
            guard let again = try? TruthFile.parse(Array(line.utf8), file: "line"), again.changes.map(\.change) == [change] else {
                violated("a truth line written does not read back to its change: \(line)")
            }
        }
        return 0
    }
}
