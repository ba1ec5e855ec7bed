import ArgumentParser

/// beacon-sim: a store model with walking shoppers that publishes as every gateway would, and an
/// evaluator that scores the aggregator against the ground truth.
@main
struct BeaconSimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-sim",
        abstract: "Simulate stores, shoppers and gateways; evaluate location accuracy.",
        discussion: """
            Not implemented yet: the simulator and evaluator land with the simulator issue. \
            This executable exists so the package layout and CI are complete.
            """)

    func run() throws {
        print("beacon-sim: not implemented yet (see the simulator issue); try --help")
        throw ExitCode(2)
    }
}
