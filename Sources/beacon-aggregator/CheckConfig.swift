import ArgumentParser
import BeaconAggregator
import BeaconEngine

/// `beacon-aggregator check-config FILE`: validates a chain config and explains every problem
/// with its JSON path; exit status 0 only for a config the aggregator would start with.
struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a chain config; print every problem with its JSON path.")

    @Argument(help: "The chain config file (JSON), e.g. config/chain.example.json.")
    var file: String

    func run() throws {
        do {
            let config = try ChainConfig.load(path: file)
            let chain = try config.resolve()
            let sections = chain.sections.count, gateways = chain.gateways.count
            print("\(file): OK — \(chain.stores.count) store(s), \(sections) section(s), \(gateways) gateway(s), rule \(chain.tuning.rule.rawValue), exit \(chain.tuning.exitRule.rawValue)")
        } catch {
            print(error.description)
            throw ExitCode(1)
        }
    }
}
