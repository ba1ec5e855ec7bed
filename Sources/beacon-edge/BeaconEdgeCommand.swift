import ArgumentParser

/// beacon-edge: one per gateway. Scans BLE (BlueZ HCI or a btsnoop replay), decodes beacons and
/// publishes raw sightings to the broker.
@main
struct BeaconEdgeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-edge",
        abstract: "Scan BLE advertising on one gateway and publish raw sightings to MQTT.",
        discussion: """
            Not implemented yet: scanning, replay and publishing land with the edge issue. \
            This executable exists so the package layout and CI are complete.
            """)

    func run() throws {
        print("beacon-edge: not implemented yet (see the edge issue); try --help")
        throw ExitCode(2)
    }
}
