import BeaconCore

/// The aggregator's brain: turns sightings from all gateways into store and section transitions,
/// device states and occupancy, in event time.
///
/// Pure: no I/O, no clock of its own. Time comes from the sightings (`t`), the batches (`sent`)
/// and ``advance(to:arrival:into:)``, so the same input in the same order always gives the same
/// output — a recorded trace replays to the same decisions. Not thread-safe: one engine per task.
///
/// An orchestrator over a few owners, each the only writer of its state: the ``GatewayBook``
/// (sequence, coverage, liveness), the ``LinkTable`` (per-link filters), ``StorePresence`` (where
/// each device is, entries and exits, occupancy, the decisions awaiting a store's gateways), the
/// configured ``SectionRule``, the ``StreetTest`` and the ``DeviceReports`` of what was published.
/// A sighting's path, in the order of this folder's files: `AggregationEngine+Ingest.swift` books
/// the batch and feeds each sighting to its link, then places the device;
/// `AggregationEngine+Decisions.swift` makes the decisions that waited for the store's gateways
/// (entry, section, street); `AggregationEngine+Sweep.swift` makes the time-driven ones at the
/// **watermark** (the latest event time less `lateness_s`): exits for silence, `unknown`,
/// occupancy; `AggregationEngine+Output.swift` says what to publish.
public struct AggregationEngine: Sendable {
    /// The chain, indexed.
    public let chain: Chain
    /// Per gateway, its store, section, calibration and local index.
    let gatewayIndex: GatewayIndex
    /// Event time, the watermark and the arrival clock.
    var clock = EngineClock()
    /// Every gateway's stream.
    var gateways: GatewayBook
    /// Every device's links.
    var links: LinkTable
    /// The devices tracked, by track.
    var devices = DeviceRegistry()
    /// Where every device is.
    var presence: StorePresence
    /// The configured section rule, with its memory of every device.
    var rule: any SectionRule
    /// The street test.
    var street: StreetTest
    /// What was published of every device.
    var reports = DeviceReports()

    /// Counters for the status topic.
    public internal(set) var statistics = EngineStatistics()

    /// A device outside for this long with no sighting is forgotten.
    package static let forgetAfter = EventDuration(milliseconds: 10 * 60 * 1000)

    public init(chain: Chain) {
        self.chain = chain
        gatewayIndex = GatewayIndex(chain: chain)
        gateways = GatewayBook(gateways: chain.gateways.count, silence: chain.tuning.gatewaySilence)
        rule = SectionRules.make(for: chain)
        links = LinkTable(tuning: chain.tuning, window: rule.reads.contains(.window))
        presence = StorePresence(chain: chain)
        street = StreetTest(chain: chain)
    }

    var tuning: Tuning { chain.tuning }

    /// Latest event time seen (sightings and batch `sent`), Unix ms; nil before any.
    public var latestEventTime: Int64? { clock.latest?.milliseconds }

    /// Devices currently tracked (inside, unknown, or recently outside).
    public var trackedDevices: Int { devices.count }

    /// The track of a device seen for the first time (or again after it was forgotten) at `time`:
    /// every owner starts it afresh.
    mutating func newTrack(_ id: DeviceID, seen time: EventTime) -> Int {
        let track = devices.add(id)
        links.start(track)
        presence.start(track, seen: time)
        rule.start(track)
        street.start(track)
        reports.start(track)
        return track
    }

    /// Forgets a device outside for ``forgetAfter``: its track is free for another.
    mutating func forget(_ track: Int) {
        devices.remove(track)
        links.clear(track)
    }
}

/// Engine counters, for the aggregator's status topic.
public struct EngineStatistics: Sendable, Equatable {
    /// Batches processed.
    public var batches: UInt64 = 0
    /// Batches ignored as duplicates (same gateway and `seq`).
    public var duplicateBatches: UInt64 = 0
    /// Batches from gateways not in the chain.
    public var unknownGatewayBatches: UInt64 = 0
    /// Sightings processed.
    public var sightings: UInt64 = 0
    /// Sightings older than the watermark on arrival (still used for filtering).
    public var lateSightings: UInt64 = 0
    /// Transitions decided.
    public var transitions: UInt64 = 0
}
