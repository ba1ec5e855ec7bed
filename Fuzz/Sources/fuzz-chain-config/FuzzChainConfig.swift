import BeaconEngine
import FuzzSupport

/// A chain config file as `beacon-aggregator` loads it (JSON parse with locations, repeated keys,
/// unknown keys, types, validation). Properties: no trap, and a config that loads has no issue.
@main
enum FuzzChainConfig {
    static func main() { runFuzzer(testOneInput) }

    static let testOneInput: FuzzTestOneInput = { data, size in
        let bytes = Array(inputBytes(data, size))
        if let config = try? ChainConfig.parse(bytes) {
            let issues = config.validate()
            guard issues.isEmpty else { violated("a loaded config has issues: \(issues)") }
        }
        return 0
    }
}
