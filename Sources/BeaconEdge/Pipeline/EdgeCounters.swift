public import Synchronization

/// What an edge has counted since it started, shared by its services and reported in the retained
/// status (`counters`). Lock-free; each service adds its own figures.
public final class EdgeCounters: Sendable {
    /// Advertising reports decoded from the source.
    public let reports = Atomic<UInt64>(0)
    /// HCI events or reports that could not be parsed (each skipped, never a crash).
    public let malformed = Atomic<UInt64>(0)
    /// Reports not published: no identity, not on the allow-list, or no RSSI.
    public let filtered = Atomic<UInt64>(0)
    /// Sightings the broker acknowledged.
    public let published = Atomic<UInt64>(0)
    /// Batches the broker acknowledged.
    public let publishedBatches = Atomic<UInt64>(0)
    /// Sightings dropped because the outage buffer was full (oldest first).
    public let dropped = Atomic<UInt64>(0)
    /// Batches dropped because the outage buffer was full.
    public let droppedBatches = Atomic<UInt64>(0)

    /// All zero.
    public init() {}

    /// Adds `value` to `counter`.
    @inline(__always)
    static func add(_ counter: borrowing Atomic<UInt64>, _ value: UInt64) {
        if value != 0 { counter.wrappingAdd(value, ordering: .relaxed) }
    }
}

/// Counts one pipeline run keeps locally and hands to ``EdgeCounters`` once per chunk, so the hot
/// loop touches no shared memory.
public struct PipelineCounts: Sendable, Equatable {
    /// Advertising reports decoded.
    public var reports: UInt64 = 0
    /// Events or reports that could not be parsed.
    public var malformed: UInt64 = 0
    /// Reports not published (no identity, not allowed, no RSSI).
    public var filtered: UInt64 = 0
    /// Reports that became sightings.
    public var sightings: UInt64 = 0

    /// All zero.
    public init() {}

    /// Adds these counts to the shared counters and zeroes them.
    mutating func flush(into counters: EdgeCounters) {
        EdgeCounters.add(counters.reports, reports)
        EdgeCounters.add(counters.malformed, malformed)
        EdgeCounters.add(counters.filtered, filtered)
        self = PipelineCounts()
    }
}
