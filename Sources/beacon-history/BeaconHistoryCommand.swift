import ArgumentParser
import BeaconCommandLine

/// beacon-history: keeps every store and section visit in a database, device ids pseudonymised,
/// and answers footfall, dwell, flows and peaks over it.
@main
struct BeaconHistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "beacon-history",
        abstract: "Keep the chain's visits in a database (pseudonymised) and report footfall, dwell, flows and peaks.",
        discussion: "See docs/HISTORY.md.",
        subcommands: [RunCommand.self, ImportCommand.self, ReportCommand.self],
        defaultSubcommand: RunCommand.self)

    /// Runs as ArgumentParser's own `main` does, the help ending with the exit statuses.
    static func main() async {
        await mainEndingHelpWithExitStatuses()
    }
}
