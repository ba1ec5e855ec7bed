import ArgumentParser

/// beacon-aggregator: subscribes to sightings, fuses them per device and publishes store/section
/// enter/exit events, retained state and occupancy.
@main
struct BeaconAggregatorCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-aggregator",
        abstract: "Fuse sightings from all gateways into store/section regions and publish events.",
        discussion: """
            The MQTT service (run) and trace replay land with the aggregator issue; check-config \
            works today.
            """,
        subcommands: [CheckConfig.self, Replay.self])
}
