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
            With a central section (the central tier in shards, docs/SCALING.md), also prints each \
            shard's address, standby, stores and aggregator, and with --store N which shard and \
            aggregator serve store N.

            Exits 0 for a config the aggregator would start with, and 78 — as run would — for one with problems.
            """)

    @Argument(help: "The chain config file (JSON), e.g. config/chain.example.json.")
    var file: String

    @Option(help: "Say which shard, standby, aggregator and hub serve this store (with a central section).")
    var store: Int?

    func run() throws {
        let config: ChainConfig
        do {
            config = try ChainConfig.load(path: file)
            let chain = try config.resolve()
            let sections = chain.sections.count, gateways = chain.gateways.count
            print("\(file): OK — \(chain.stores.count) store(s), \(sections) section(s), \(gateways) gateway(s), rule \(chain.tuning.rule.rawValue), exit \(chain.tuning.exitRule.rawValue)")
            for line in Self.calibrationLines(config: config, chain: chain, file: file) { print(line) }
            if let line = Self.geometryLine(chain: chain) { print(line) }
        } catch {
            print(error.description)
            throw ExitCode(.configError)
        }
        for line in Self.centralLines(config: config) { print(line) }
        if let store { print(try Self.storeLine(store, config: config)) }
    }

    /// The central tier's map: the hub, then a line a shard.
    static func centralLines(config: ChainConfig) -> [String] {
        guard let central = config.central else { return [] }
        var lines = ["central: hub \(central.hub), \(central.shards.count) shard(s)"]
        for shard in central.shards {
            let selection = try? StoreSelection(parsing: shard.stores)
            let count = config.stores.filter { store in selection?.ranges.contains { $0.contains(store.major) } == true }.count
            let standby = shard.standby.map { ", standby \($0)" } ?? ", no standby"
            let standbyAggregator = shard.standbyAggregator.map { "; standby aggregator \($0) (--standby-for \(shard.aggregator) --stores \(shard.stores))" } ?? ""
            lines.append("  \(shard.name): \(shard.address)\(standby); stores \(shard.stores) (\(count) in this config); aggregator \(shard.aggregator) (--stores \(shard.stores))\(standbyAggregator)")
        }
        return lines
    }

    /// Which shard and aggregator serve `store`; exit 64 when the config cannot say.
    static func storeLine(_ store: Int, config: ChainConfig) throws -> String {
        guard config.stores.contains(where: { $0.major == store }) else {
            throw ExitCode(.usage, saying: "--store \(store): no such store in this config")
        }
        guard let central = config.central else {
            throw ExitCode(.usage, saying: "--store \(store): this config has no central section (docs/SCALING.md): every store goes to the one central broker")
        }
        guard let shard = central.shard(of: store) else { return "store \(store): in no shard" }
        let standby = shard.standby.map { ", standby \($0)" } ?? ""
        let standbyAggregator = shard.standbyAggregator.map { " (standby \($0))" } ?? ""
        return "store \(store): shard \(shard.name) (\(shard.address)\(standby)), aggregator \(shard.aggregator)\(standbyAggregator), hub \(central.hub)"
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
