import BeaconCore
import BeaconEngine
import FuzzSupport

/// A calibration file as the aggregator loads it (JSON, repeated and unknown keys, types,
/// validation, at most 20 problems). Properties: no trap; a calibration that loads has no issue,
/// and the file `calibrate` would write for it loads back to the same calibration.
@main
enum FuzzCalibration {
    static func main() { runFuzzer(testOneInput) }

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = Array(inputBytes(data, size))
        let calibration: Calibration
        do throws(ConfigError) {
            calibration = try Calibration.parse(bytes)
        } catch {
            guard (1...20).contains(error.issues.count) else { violated("refused with \(error.issues.count) issues") }
            return 0
        }
        let issues = calibration.validate()
        guard issues.isEmpty else { violated("a loaded calibration has issues: \(issues)") }
        let written = calibration.fileText()
        do {
            guard try Calibration.parse(Array(written.utf8)) == calibration else { violated("the written calibration loads as another:\n\(written)") }
        } catch {
            violated("the written calibration does not load: \(error)\n\(written)")
        }
        return 0
    }
}
