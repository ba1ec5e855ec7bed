import ArgumentParser
import BeaconCore

/// beacon-sim: a store model with walking shoppers that publishes as every gateway would, and an
/// evaluator that scores the aggregator against the ground truth.
@main
struct BeaconSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-sim",
        abstract: "Simulate stores, shoppers and gateways; evaluate location accuracy.",
        discussion: ExitStatus.help,
        subcommands: [Run.self, Watch.self, Evaluate.self, Import.self, PrintChain.self, Sweep.self, Load.self])
}
