import ArgumentParser
import BeaconCommandLine

/// beacon-sim: a store model with walking shoppers that publishes as every gateway would, and an
/// evaluator that scores the aggregator against the ground truth.
@main
struct BeaconSimCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-sim",
        abstract: "Simulate stores, shoppers and gateways; evaluate location accuracy.",
        subcommands: [Run.self, Walk.self, Day.self, Watch.self, Evaluate.self, Import.self, PrintChain.self, Sweep.self, Quality.self, Load.self])

    /// Runs as ArgumentParser's own `main` does, the help ending with the exit statuses.
    static func main() async {
        await mainEndingHelpWithExitStatuses()
    }
}
