import BeaconAllocator
import ArgumentParser
import BeaconWire

/// beacon-bench: throughput benchmarks run in release mode. They print figures for a person or a
/// report to read; they assert nothing (tests do that).
@main
struct BeaconBench: AsyncParsableCommand {
    /// Applies the allocator tuning (a one-time re-exec, see `AllocatorTuning`), then runs as
    /// ArgumentParser's own `main` does.
    static func main() async {
        AllocatorTuning.apply()
        await main(nil)
    }

    static let configuration = CommandConfiguration(
        commandName: "beacon-bench",
        abstract: "Measure BeaconNet's hot paths against baselines (run with -c release).",
        subcommands: [WireBenchmark.self, EdgeBenchmark.self, AggregatorBenchmark.self, HistoryBenchmark.self, HubBenchmark.self, DashboardBenchmark.self, ChainBenchmark.self])
}
