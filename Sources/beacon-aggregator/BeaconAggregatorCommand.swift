import ArgumentParser
import BeaconWire

/// beacon-aggregator: subscribes to sightings, fuses them per device and publishes store/section
/// enter/exit events, retained state and occupancy.
@main
struct BeaconAggregatorCommand: AsyncParsableCommand {
    /// Applies the allocator tuning (a one-time re-exec, see `AllocatorTuning`), then parses and
    /// runs the command as ArgumentParser's default `main` would.
    static func main() async {
        AllocatorTuning.apply()
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }

    static let configuration = CommandConfiguration(
        commandName: "beacon-aggregator",
        abstract: "Fuse sightings from all gateways into store/section regions and publish events.",
        discussion: """
            run is the live service; replay runs a recorded trace through the same code; \
            check-config explains a chain config.
            """,
        subcommands: [RunService.self, CheckConfig.self, Replay.self])
}
