import ArgumentParser
import BeaconAllocator
import BeaconCommandLine
import BeaconCore
import BeaconWire

/// beacon-aggregator: subscribes to sightings, fuses them per device and publishes store/section
/// enter/exit events, retained state and occupancy.
@main
struct BeaconAggregatorCommand: AsyncParsableCommand {
    /// Applies the allocator tuning (a one-time re-exec, see `AllocatorTuning`), then runs as
    /// ArgumentParser's own `main` does, the help ending with the exit statuses.
    static func main() async {
        AllocatorTuning.apply()
        await mainEndingHelpWithExitStatuses()
    }

    static let configuration = CommandConfiguration(
        commandName: "beacon-aggregator",
        abstract: "Fuse sightings from all gateways into store/section regions and publish events.",
        discussion: """
            run is the live service; replay runs a recorded trace through the same code; \
            check-config explains a chain config; calibrate learns a store's fingerprints from a walk.
            """,
        subcommands: [RunService.self, CheckConfig.self, Replay.self, Calibrate.self])
}
