import ArgumentParser

/// beacon-aggregator: subscribes to sightings, fuses them per device and publishes store/section
/// enter/exit events, retained state and occupancy.
@main
struct BeaconAggregatorCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-aggregator",
        abstract: "Fuse sightings from all gateways into store/section regions and publish events.",
        discussion: """
            run is the live service; replay runs a recorded trace through the same code; \
            check-config explains a chain config.
            """,
        subcommands: [RunService.self, CheckConfig.self, Replay.self])
}
