import CAllocator
#if canImport(Glibc)
import Glibc
#endif

/// The allocator settings BeaconNet's processes run with.
///
/// json-c builds a tree of small heap blocks for every payload (about ten per sighting) and frees
/// them all after the walk. glibc keeps only 7 freed blocks per size in its per-thread cache by
/// default, so most of those calls fall through to its slower general paths: measured, malloc and
/// free are ~40 % of a batch's decode. `glibc.malloc.tcache_count=2048` lets a whole batch's blocks
/// be recycled from the cache; decode throughput rises by ~12 % (docs/MEASUREMENTS.md).
/// glibc reads tunables only at start-up, so the process re-executes itself once with the tunable
/// in its environment.
///
/// json-c's objects also ``callocThroughCache``: glibc's calloc bypasses that cache, so
/// `Sources/CAllocator/calloc.c` gives the executables that link this module (beacon-aggregator,
/// beacon-edge, beacon-bench — never a library) a calloc that serves small blocks through malloc
/// (measured: the aggregator's in-process rate rises by ~20–30 %).
///
/// Set `BEACONNET_NO_ALLOCATOR_TUNING` (to anything) to run with glibc's defaults for both.
public enum AllocatorTuning {
    /// The tunable, as it goes into `GLIBC_TUNABLES`.
    public static let tunable = "glibc.malloc.tcache_count=2048"

    /// Whether small calloc() blocks go through malloc's per-thread cache in this process.
    public static var callocThroughCache: Bool { bn_calloc_through_cache() == 1 }

    /// Whether this process runs with the tunable.
    public static var isActive: Bool {
        guard let current = getenv("GLIBC_TUNABLES") else { return false }
        return String(cString: current).contains("glibc.malloc.tcache_count=")
    }

    /// Re-executes the process with the tunable unless it is already set or opted out of. Call it
    /// first thing in `main`; returns (untuned) if re-executing is not possible.
    public static func apply() {
        #if os(Linux)
        guard !isActive, getenv("BEACONNET_NO_ALLOCATOR_TUNING") == nil else { return }
        let value = getenv("GLIBC_TUNABLES").map { String(cString: $0) + ":" + tunable } ?? tunable
        setenv("GLIBC_TUNABLES", value, 1)
        execv("/proc/self/exe", CommandLine.unsafeArgv)
        // Still here: exec failed (no /proc?). Carry on with the default allocator settings.
        unsetenv("GLIBC_TUNABLES")
        #endif
    }
}
