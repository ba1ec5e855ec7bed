import ArgumentParser
import BeaconWire

/// beacon-bench: throughput benchmarks run in release mode. They print figures for a person or a
/// report to read; they assert nothing (tests do that).
@main
struct BeaconBench: AsyncParsableCommand {
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
        commandName: "beacon-bench",
        abstract: "Measure BeaconNet's hot paths against baselines (run with -c release).",
        subcommands: [WireBenchmark.self, EdgeBenchmark.self, AggregatorBenchmark.self])
}
