import BeaconCore

/// The aggregator's brain: turns sightings from all gateways into store and section transitions,
/// device states and occupancy, in event time.
///
/// Pure: no I/O, no clock of its own. Time comes from the sightings (`t`), the batches (`sent`)
/// and ``advance(to:arrival:into:)``, so the same input in the same order always gives the same
/// output — a recorded trace replays to the same decisions. Not thread-safe: one engine per task.
///
/// A sighting's path, one folder per step (docs/ARCHITECTURE.md walks it file by file):
/// `Ingest/` books the batch (sequence, gateway liveness) → `Link/` feeds the (device, gateway)
/// link's filter → `Store/` enters a store on enough evidence, or → `Section/` lets the configured
/// ``SectionRule`` place the device in a section → `Street/` may see it walking away outside.
/// Time-driven decisions — exits for silence, `unknown`, occupancy — wait for the **watermark**
/// (the latest event time seen minus `lateness_s`) in `Store/AggregationEngine+Sweep.swift`, so a
/// batch that arrives up to that much late still counts before anyone is exited for silence.
/// `Restore/` reads back the states of a previous run; `Output/` says what to publish.
///
/// Ordering: each gateway's reports arrive in order and feed that link's own filter, so
/// interleaving *across* gateways does not disturb any filter.
public struct AggregationEngine: Sendable {
    /// The chain, indexed.
    public let chain: Chain
    var tuning: Tuning { chain.tuning }

    /// Per device, by track index.
    var tracks: [DeviceTrack] = []
    /// Device id → track index.
    var devices = DeviceTable()
    /// Track indices free for reuse (their devices were forgotten).
    var freeTracks: [Int] = []
    /// Per gateway, by index in ``Chain/gateways``.
    var gateways: [GatewayTrack]
    /// The configured section rule, with its memory of every device.
    var sectionRule: any SectionDecider
    /// Per store, the street test's model (nil where the geometry is missing or it is switched off).
    let streetModels: [StreetModel?]
    /// Per gateway, the scalars the hot path needs (no struct copies, no retains).
    let gatewayStore: [Int32]
    let gatewaySection: [Int32]
    let gatewayCalibration: [Double]
    /// Per gateway, its index among its store's gateways (the local order of the store's models).
    let gatewayLocalIndex: [Int32]
    /// Whether the configured rule wants every sighting, not only the filtered links.
    let ruleHearsSightings: Bool
    /// Per store, whether entering it needs the rule's consent (``SectionRule/needsConsent(store:)``).
    let entryNeedsConsent: [Bool]
    /// Per store, the devices whose section or entry awaits the store's gateways
    /// (Store/AggregationEngine+Awaiting.swift).
    var awaiting: [[Int]]
    /// Devices per store and section.
    var occupancy: OccupancyTally
    /// Event time, the watermark and the arrival clock.
    var clock = EngineClock()

    /// Counters for the status topic.
    public internal(set) var statistics = EngineStatistics()

    /// How often (event time) time-driven decisions are swept, ms.
    static let sweepInterval: Int64 = 500
    /// Occupancy is published at most this often per topic, ms.
    static let occupancyInterval: Int64 = 1000
    /// A device outside for this long with no sighting is forgotten, ms.
    package static let forgetAfter: Int64 = 10 * 60 * 1000

    public init(chain: Chain) {
        self.chain = chain
        gateways = Array(repeating: GatewayTrack(), count: chain.gateways.count)
        sectionRule = SectionRules.make(for: chain)
        ruleHearsSightings = sectionRule.hearsEverySighting
        entryNeedsConsent = chain.stores.indices.map { [sectionRule] in sectionRule.needsConsent(store: $0) }
        awaiting = Array(repeating: [], count: chain.stores.count)
        streetModels = chain.stores.indices.map { chain.tuning.streetExit ? StreetModel(chain: chain, store: $0) : nil }
        gatewayStore = chain.gateways.map { Int32($0.store) }
        gatewaySection = chain.gateways.map { Int32($0.section) }
        gatewayCalibration = chain.gateways.map(\.calibrationDB)
        var localIndex = [Int32](repeating: 0, count: chain.gateways.count)
        for store in chain.stores {
            for (local, gateway) in store.gateways.enumerated() { localIndex[gateway] = Int32(local) }
        }
        gatewayLocalIndex = localIndex
        occupancy = OccupancyTally(stores: chain.stores.count, sections: chain.sections.count)
    }

    /// Latest event time seen (sightings and batch `sent`), Unix ms; `Int64.min` before any.
    public var latestEventTime: Int64 { clock.latest?.milliseconds ?? .min }

    /// Devices currently tracked (inside, unknown, or recently outside).
    public var trackedDevices: Int { devices.count }

    /// The track of a device seen for the first time (or again after it was forgotten).
    mutating func newTrack(_ id: DeviceID) -> Int {
        let track = DeviceTrack(id: id)
        let index: Int
        if let reused = freeTracks.popLast() {
            tracks[reused] = track
            index = reused
        } else {
            tracks.append(track)
            index = tracks.count - 1
        }
        devices.insert(id, track: index)
        sectionRule.reset(track: index)
        return index
    }

    /// Forgets a device outside for ``forgetAfter``: its track is free for another.
    mutating func forget(_ track: Int) {
        devices.remove(track: track)
        tracks[track].links = []
        tracks[track].lastSeen = nil
        freeTracks.append(track)
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
