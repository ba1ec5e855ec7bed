import ArgumentParser
import BeaconAggregator
import BeaconCommandLine
import BeaconCore
import BeaconEngine

/// `beacon-aggregator check-config FILE`: validates a chain config, and the calibration file it
/// names, and explains every problem with its file and JSON path; exit status 0 only for a config
/// the aggregator would start with, and for any other the status `run` would exit with.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a chain config (and its calibration file); print every problem with its JSON path.",
        discussion: """
            Exits 0 for a config the aggregator would start with, and 78 — as run would — for one with problems.
            """)

    @Argument(help: "The chain config file (JSON), e.g. config/chain.example.json.")
    var file: String

    func run() throws {
        do {
            let config = try ChainConfig.load(path: file)
            let chain = try config.resolve()
            let sections = chain.sections.count, gateways = chain.gateways.count
            print("\(file): OK — \(chain.stores.count) store(s), \(sections) section(s), \(gateways) gateway(s), rule \(chain.tuning.rule.rawValue), exit \(chain.tuning.exitRule.rawValue)")
            for line in Self.calibrationLines(config: config, chain: chain, file: file) { print(line) }
            if let line = Self.geometryLine(chain: chain) { print(line) }
        } catch {
            print(error.description)
            throw ExitCode(.configError)
        }
    }

    /// Under the `position` rule, the stores it leaves to hysteresis for want of geometry.
    static func geometryLine(chain: Chain) -> String? {
        guard chain.tuning.rule == .position else { return nil }
        let bare = chain.storesWithoutGeometry
        guard !bare.isEmpty else { return nil }
        let shown = bare.prefix(20).map(String.init).joined(separator: ", ") + (bare.count > 20 ? " and \(bare.count - 20) more" : "")
        return "note: \(bare.count) store(s) without a polygon for every section and a position for every gateway decide as hysteresis: \(shown)"
    }

    /// What the calibration covers — sections, and outside where the rule decides exits — and
    /// which stores the `fingerprint` rule decides without one.
    static func calibrationLines(config: ChainConfig, chain: Chain, file: String) -> [String] {
        var lines: [String] = []
        let calibrated = chain.calibratedStores
        if let name = config.calibrationFile {
            let unused = chain.tuning.rule == .fingerprint ? "" : " (not used: the rule is \(chain.tuning.rule.rawValue))"
            let outside = chain.storesWithOutside.isEmpty ? "" : " (outside too: \(chain.storesWithOutside.map(String.init).joined(separator: ", ")))"
            lines.append("\(ChainConfig.calibrationPath(name, chainFile: file)): OK — fingerprints for store(s) \(calibrated.map(String.init).joined(separator: ", "))\(outside)\(unused)")
        }
        if chain.tuning.rule == .fingerprint {
            let bare = chain.stores.map(\.major).filter { !calibrated.contains($0) }
            if !bare.isEmpty {
                let shown = bare.prefix(20).map(String.init).joined(separator: ", ") + (bare.count > 20 ? " and \(bare.count - 20) more" : "")
                lines.append("note: \(bare.count) store(s) without fingerprints decide as hysteresis: \(shown)")
            }
        }
        return lines
    }
}
