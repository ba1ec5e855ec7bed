import BeaconEdge
import FuzzSupport

/// An edge config file as `beacon-edge` loads it (JSON parse with locations, repeated keys, every
/// key's checks).
/// Properties: no trap, and a config that loads prints (`--print-config`) to text that loads back
/// to the same config.
@main
enum FuzzEdgeConfig {
    static func main() { runFuzzer(testOneInput) }

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = Array(inputBytes(data, size))
        guard let config = try? EdgeConfig.parse(bytes) else { return 0 }
        let printed = config.json.serialized()
        do {
            let again = try EdgeConfig.parse(Array(printed.utf8))
            guard again == config else { violated("the printed config loads as another config:\n\(printed)") }
        } catch {
            violated("the printed config does not load: \(error)\n\(printed)")
        }
        return 0
    }
}
