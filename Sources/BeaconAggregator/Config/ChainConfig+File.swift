public import BeaconCore
public import BeaconEngine
import Foundation

extension ChainConfig {
    /// Reads a chain config file, then decodes and validates it
    /// (``ChainConfig/load(contents:file:tuning:)``), and the calibration file it names in
    /// `calibration`, checked on its own and against the chain: what `run`, `check-config` and
    /// `replay` start from. The engine itself does no I/O, so the files are read here. A problem in
    /// the calibration file is reported with that file's name.
    public static func load(path: String, tuning: String? = nil) throws(ConfigError) -> ChainConfig {
        let contents: [UInt8]
        do {
            contents = try ConfigFile.read(path)
        } catch {
            throw ConfigError(file: path, issues: [ConfigIssue(path: "$", message: "cannot read the file: \(error.reason)")])
        }
        var config = try load(contents: contents, file: path, tuning: tuning)
        guard let file = config.calibrationFile else { return config }
        guard !file.isEmpty else {
            throw ConfigError(file: path, issues: [ConfigIssue(path: "$.calibration", message: "is empty: name the calibration file, or drop the key")])
        }
        config.calibration = try loadCalibration(calibrationPath(file, chainFile: path), named: file, chainFile: path, chain: config)
        return config
    }

    /// Where the calibration file `file` (the chain's `calibration` key) is: as it is when
    /// absolute, else relative to the folder of the chain file `chainFile`.
    public static func calibrationPath(_ file: String, chainFile: String) -> String {
        if file.hasPrefix("/") { return file }
        let folder = (chainFile as NSString).deletingLastPathComponent
        return folder.isEmpty ? file : (folder as NSString).appendingPathComponent(file)
    }

    /// Reads and checks the calibration file at `path` for `chain`; a file that cannot be read is
    /// the chain file's problem (its `calibration` key names it), anything wrong inside it is the
    /// calibration file's.
    static func loadCalibration(_ path: String, named file: String, chainFile: String, chain: ChainConfig) throws(ConfigError) -> Calibration {
        let contents: [UInt8]
        do {
            contents = try ConfigFile.read(path)
        } catch {
            throw ConfigError(file: chainFile, issues: [ConfigIssue(
                path: "$.calibration",
                message: "cannot read \"\(file)\" (\(path)): \(error.reason); beacon-aggregator calibrate writes it")])
        }
        do {
            return try Calibration.parse(contents, against: chain)
        } catch {
            var located = error
            located.file = path
            throw located
        }
    }
}
