public import BeaconCore

/// Bounds a decoder enforces before it trusts a payload; every one is checked without a clock.
///
/// The defaults suit production: a gateway that batches one second of a busy section sends far
/// less than 4000 sightings and 512 KiB, and a payload over the size bound is rejected before a
/// byte of it is parsed. The bounds of what a store's description may hold (names, polygons,
/// sections, the payload size the chain config is checked against) are BeaconCore's
/// ``WireBounds``, the same for every reader. UTF-8 is always validated (before json-c parses, see `UTF8Validation`) and the
/// parser always runs in strict mode; neither is configurable.
public struct WireLimits: Sendable, Hashable {
    /// The largest payload accepted, in bytes (default ``WireBounds/maxPayloadBytes``, 512 KiB:
    /// the bound the chain config holds a store's layout to). Larger ones fail with
    /// ``WireError/Reason/payloadTooLarge(size:limit:)`` before parsing.
    public var maxPayloadBytes: Int
    /// The most sightings one ``SightingBatch`` may carry (default 4000).
    public var maxSightings: Int
    /// The most entries a counter map (``AggregatorStatus/Counters/rejects``, ``AggregatorStatus/Counters/loss``)
    /// may hold (default 1024).
    public var maxMapEntries: Int
    /// The deepest nesting of arrays and objects the parser accepts (default 8; BeaconNet's own
    /// payloads need 3). Deeper input fails with ``WireError/Reason/tooDeep(limit:)``.
    public var maxDepth: Int
    /// The timestamps accepted, in Unix milliseconds (default ``earliestTime`` … ``latestTime``).
    /// A codec has no clock, so the bound is static: it catches seconds sent as milliseconds
    /// (1970), negative times and garbage, not a gateway whose clock is merely off.
    public var timeRange: ClosedRange<Int64>

    /// 2015-01-01T00:00:00Z: no BeaconNet gateway ever ran before it.
    public static let earliestTime: Int64 = 1_420_070_400_000
    /// 2099-12-31T23:59:59.999Z, the last millisecond before 2100.
    public static let latestTime: Int64 = 4_102_444_799_999

    /// The production defaults.
    public static let `default` = WireLimits()

    /// Creates limits; every parameter defaults to the production value.
    public init(
        maxPayloadBytes: Int = WireBounds.maxPayloadBytes, maxSightings: Int = 4000, maxMapEntries: Int = 1024,
        maxDepth: Int = 8, timeRange: ClosedRange<Int64> = earliestTime...latestTime
    ) {
        self.maxPayloadBytes = maxPayloadBytes
        self.maxSightings = maxSightings
        self.maxMapEntries = maxMapEntries
        self.maxDepth = maxDepth
        self.timeRange = timeRange
    }
}
