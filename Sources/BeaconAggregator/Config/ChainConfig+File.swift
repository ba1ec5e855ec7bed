public import BeaconCore
public import BeaconEngine
import Foundation

extension ChainConfig {
    /// Reads a chain config file, then decodes and validates it
    /// (``ChainConfig/load(contents:file:tuning:)``): what `run`, `check-config` and `replay`
    /// start from. The engine itself does no I/O, so the file is read here.
    public static func load(path: String, tuning: String? = nil) throws(ConfigError) -> ChainConfig {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigError(file: path, issues: [ConfigIssue(path: "$", message: "cannot read the file (missing or not readable)")])
        }
        return try load(contents: Array(data), file: path, tuning: tuning)
    }
}
