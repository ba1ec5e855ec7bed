public import BeaconCore

/// The aggregator's brain: turns sightings from all gateways into store and section transitions,
/// device states and occupancy, in event time.
///
/// Pure: no I/O, no clock of its own. Time comes from the sightings (`t`), the batches (`sent`)
/// and ``advance(to:into:)``, so the same input in the same order always gives the same output —
/// a recorded trace replays to the same decisions. Not thread-safe: one engine per task.
///
/// Ordering: each gateway's reports arrive in order and feed that (device, gateway) link's own
/// filter, so interleaving *across* gateways does not disturb any filter. Time-driven decisions
/// (exits, gateway silence) wait for the **watermark** — the latest event time seen minus
/// `lateness_s` — so a batch that arrives up to that much late still counts before anyone is
/// exited for silence.
public struct AggregationEngine: Sendable {
    /// The chain, indexed.
    public let chain: Chain
    var tuning: Tuning { chain.tuning }

    var tracks: [DeviceTrack] = []
    /// Device id → index in ``tracks``.
    var devices = DeviceTable()
    var freeTracks: [Int] = []
    var gateways: [GatewayTrack]
    /// Per store: expected radio picture of its sections (HMM rule).
    let models: [SectionModel]
    /// Per store, the street test's model (nil where the geometry is missing or it is switched off).
    let streetModels: [StreetModel?]
    /// Per gateway, the scalars the hot path needs (no struct copies, no retains).
    let gatewayStore: [Int32]
    let gatewaySection: [Int32]
    let gatewayCalibration: [Double]
    /// Per gateway, its index among its store's gateways (the local order of the store's models).
    let gatewayLocalIndex: [Int32]
    /// Hops from each section to every section of its store (index: b − the store's first section).
    let hopTable: [[UInt8]]
    var storeCount: [Int]
    var sectionCount: [Int]
    var dirtyStores: Set<Int> = []
    var dirtySections: Set<Int> = []

    /// Latest event time seen (sightings and batch `sent`), ms.
    public private(set) var latestEventTime: Int64 = .min
    /// The first event time seen (this process's start, in event time), ms.
    var firstEventTime: Int64 = .min
    /// The live service's arrival clock (wall time while connected to the broker), ms; `.min` in
    /// a replay, where only event time exists.
    var arrivalNow: Int64 = .min
    /// The first arrival seen (this process's start on the arrival clock).
    var firstArrival: Int64 = .min
    /// The arrival clock when the sightings connection last came back up: a gateway that has not
    /// delivered since may have a backlog queued behind the others'.
    var reconnectedAt: Int64 = .min
    /// The watermark: time-driven decisions have been made up to here, ms.
    public private(set) var watermark: Int64 = .min
    var lastSweep: Int64 = .min
    var lastOccupancyFlush: Int64 = .min
    /// Event time of the latest transition that changed a count: occupancy is stamped no earlier.
    var occupancyChangedAt: Int64 = .min

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
        models = chain.tuning.rule == .hmm ? chain.stores.indices.map { SectionModel(chain: chain, store: $0) } : []
        streetModels = chain.stores.indices.map { chain.tuning.streetExit ? StreetModel(chain: chain, store: $0) : nil }
        gatewayStore = chain.gateways.map { Int32($0.store) }
        gatewaySection = chain.gateways.map { Int32($0.section) }
        gatewayCalibration = chain.gateways.map(\.calibrationDB)
        var localIndex = [Int32](repeating: -1, count: chain.gateways.count)
        for store in chain.stores {
            for (i, g) in store.gateways.enumerated() { localIndex[g] = Int32(i) }
        }
        gatewayLocalIndex = localIndex
        hopTable = chain.sections.indices.map { a in
            chain.stores[chain.sections[a].store].sections.map { b in UInt8(clamping: chain.hops(from: a, to: b)) }
        }
        storeCount = Array(repeating: 0, count: chain.stores.count)
        sectionCount = Array(repeating: 0, count: chain.sections.count)
    }

    /// What became of a batch.
    public enum BatchOutcome: Sendable, Equatable {
        /// Processed.
        case accepted
        /// The same gateway and `seq` were seen before; ignored.
        case duplicate
        /// The gateway is not in the chain.
        case unknownGateway
    }

    /// Processes one gateway's batch of sightings; appends what to publish to `out`.
    @discardableResult
    public mutating func ingest(
        gateway id: GatewayID, seq: UInt64, sent: Int64, epoch: Int64? = nil, arrival: Int64? = nil, observations: some Sequence<Observation>,
        into out: inout [EngineOutput]
    ) -> BatchOutcome {
        ingest(gateway: id, seq: seq, sent: sent, epoch: epoch, arrival: arrival, into: &out) { engine, g, out in
            for o in observations {
                var text = o.device.rawValue
                text.withUTF8 { device in
                    engine.observe(ObservationRef(device: device, time: o.time, rssi: o.rssi, measuredPower: o.measuredPower), gateway: g, into: &out)
                }
            }
        }
    }

    /// The same for sightings whose device ids are borrowed bytes that passed
    /// ``DeviceID/validate(utf8:)`` (the message processor's hot path: no string per sighting).
    @discardableResult
    package mutating func ingest(
        gateway id: GatewayID, seq: UInt64, sent: Int64, epoch: Int64? = nil, arrival: Int64? = nil, observations: UnsafeBufferPointer<ObservationRef>,
        into out: inout [EngineOutput]
    ) -> BatchOutcome {
        ingest(gateway: id, seq: seq, sent: sent, epoch: epoch, arrival: arrival, into: &out) { engine, g, out in
            for o in observations { engine.observe(o, gateway: g, into: &out) }
        }
    }

    /// Books the batch (unknown gateway, duplicate), then lets `feed` observe its sightings.
    private mutating func ingest(
        gateway id: GatewayID, seq: UInt64, sent: Int64, epoch: Int64?, arrival: Int64?, into out: inout [EngineOutput],
        _ feed: (inout AggregationEngine, Int, inout [EngineOutput]) -> Void
    ) -> BatchOutcome {
        guard let g = chain.gatewayIndex[id] else {
            statistics.unknownGatewayBatches += 1
            return .unknownGateway
        }
        guard gateways[g].book(seq: seq, sent: sent, epoch: epoch) == .accept else {
            statistics.duplicateBatches += 1
            return .duplicate
        }
        statistics.batches += 1
        gateways[g].noteBatch(sent: sent)
        if let arrival {
            if firstArrival == .min { firstArrival = arrival }
            arrivalNow = max(arrivalNow, arrival)
            gateways[g].arrivedAt = max(gateways[g].arrivedAt, arrival)
        } else {
            gateways[g].arrivedAt = max(gateways[g].arrivedAt, latestEventTime, sent)
        }
        feed(&self, g, &out)
        noteEventTime(sent, into: &out)
        return .accepted
    }

    /// An explicit gateway status (`online`, or the Last Will's `offline`) at event time `time`.
    ///
    /// A status says whether the edge's connection is up, not what its scanner heard: `online`
    /// only clears an offline status (the gateway counts as alive again with its next batch's
    /// coverage), and a status does not move event time — its time is the edge's "now", which can
    /// be ahead of batches still queued behind it (an edge reconnecting sends `online` first and
    /// its buffered batches after). The next batch, or the service's tick, runs the sweep.
    public mutating func gatewayStatus(_ id: GatewayID, online: Bool, at time: Int64, into out: inout [EngineOutput]) {
        guard let g = chain.gatewayIndex[id] else { return }
        gateways[g].reportedOffline = !online
    }

    /// Moves event time forward with no traffic (the service's clock when the chain is idle, or the
    /// end of a replay), so that exits still happen.
    public mutating func advance(to time: Int64, arrival: Int64? = nil, into out: inout [EngineOutput]) {
        if let arrival {
            if firstArrival == .min { firstArrival = arrival }
            arrivalNow = max(arrivalNow, arrival)
        }
        noteEventTime(time, into: &out)
    }

    /// The live service's sightings connection came back up at `arrival` (its arrival clock).
    public mutating func noteReconnect(arrival: Int64) {
        reconnectedAt = arrival
        if firstArrival == .min { firstArrival = arrival }
        arrivalNow = max(arrivalNow, arrival)
    }

    /// Lets event time pass to `time` as if every gateway alive now went on sending empty batches
    /// (heartbeats) each second: what the end of a recording would have been followed by had the
    /// chain gone on hearing no one (`replay --drain`). Devices still inside exit by the usual
    /// rules; devices only offline gateways heard stay `unknown`.
    public mutating func drain(to time: Int64, into out: inout [EngineOutput]) {
        guard latestEventTime != .min else { return }
        let silence = Int64(tuning.gatewaySilenceSeconds * 1000)
        let alive = gateways.indices.filter { gateways[$0].isOnline(at: latestEventTime, silence: silence) }
        // A heartbeat a second until every device still heard would have exited (the exit timeout
        // and the lateness past the end), then one step to `time`: a day's drain costs a minute's.
        let settled = latestEventTime + Int64((tuning.exitTimeoutSeconds + tuning.latenessSeconds) * 1000) + 2000
        var t = latestEventTime
        while t < time {
            t = t < settled ? min(t + 1000, time) : time
            for g in alive { gateways[g].noteHeartbeat(at: t) }
            noteEventTime(t, into: &out)
        }
    }

    /// Loss, duplicates and restarts per gateway, for the status topic.
    public func gatewayCounters() -> [GatewayCounters] {
        chain.gateways.indices.map { g in
            GatewayCounters(
                id: chain.gateways[g].id, received: gateways[g].received, lost: gateways[g].lost, restartGap: gateways[g].restartGap,
                duplicates: gateways[g].duplicates,
                online: gateways[g].isOnline(at: watermark, arrival: arrivalNow == .min ? nil : arrivalNow, silence: Int64(tuning.gatewaySilenceSeconds * 1000)),
                lastBatch: gateways[g].lastBatch)
        }
    }

    /// The highest batch processed per gateway (for the snapshot file); gateways never heard are left out.
    public func gatewayProgress() -> [GatewayResumePoint] {
        chain.gateways.indices.compactMap { g in
            gateways[g].current.map { GatewayResumePoint(id: chain.gateways[g].id, seq: $0.highest, sent: $0.newestSent, epoch: $0.epoch) }
        }
    }

    /// Continues each gateway's sequence from a previous run's snapshot, so that batches that went
    /// missing across the restart are counted (see ``GatewayTrack/restartGap``). Unknown gateways
    /// are ignored; returns how many were resumed.
    @discardableResult
    public mutating func resumeGateways(_ progress: [GatewayResumePoint]) -> Int {
        var resumed = 0
        for p in progress {
            guard let g = chain.gatewayIndex[p.id] else { continue }
            gateways[g].resume(seq: p.seq, sent: p.sent, epoch: p.epoch)
            resumed += 1
        }
        return resumed
    }

    /// Devices currently tracked (inside, unknown, or recently outside).
    public var trackedDevices: Int { devices.count }

    // MARK: - Time

    mutating func noteEventTime(_ time: Int64, into out: inout [EngineOutput]) {
        guard time > latestEventTime else { return }
        if firstEventTime == .min { firstEventTime = time }
        latestEventTime = time
        let w = time - Int64(tuning.latenessSeconds * 1000)
        if w > watermark { watermark = w }
        if lastSweep == .min { lastSweep = watermark }
        if watermark - lastSweep >= Self.sweepInterval {
            sweep(at: watermark, into: &out)
            lastSweep = watermark
        }
    }

    // MARK: - Sightings

    /// Which link a gateway without one takes when all ``DeviceTrack/maxLinks`` are in use: the
    /// stalest if one has not been heard for ``Tuning/staleAfterSeconds`` (the device moved on);
    /// otherwise the weakest, and only if the newcomer's report beats that link's estimate by
    /// ``linkReplacementMargin`` (nil: the sighting updates nothing per link). The strongest links
    /// are what the rules weigh, and the street test counts a gateway without a link as hearing
    /// below the weakest plus that margin — replacing the stalest regardless would, once more
    /// gateways hear a device than it has links, keep the most recently heard instead, each
    /// filter restarting from one sample.
    func linkToReplace(_ ti: Int, newRSSI: Double, at t: Int64) -> Int? {
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        return tracks[ti].links.withUnsafeBufferPointer { links -> Int? in
            var stalest = 0, weakest = 0
            for i in links.indices {
                if links[i].filter.time < links[stalest].filter.time { stalest = i }
                if links[i].filter.estimate < links[weakest].filter.estimate { weakest = i }
            }
            if t - links[stalest].filter.time > stale { return stalest }
            return newRSSI > links[weakest].filter.estimate + linkReplacementMargin ? weakest : nil
        }
    }

    /// How much a single report must beat the weakest link's estimate to replace it: one
    /// standard deviation of a report (``Tuning/measurementNoiseDB``). Without it, the link in the
    /// last slot would change whenever noise lifted one report of an unlinked gateway above it —
    /// about once a second per device heard by more gateways than it keeps — and restart from
    /// that one sample.
    var linkReplacementMargin: Double { tuning.measurementNoiseDB }

    mutating func observe(_ o: ObservationRef, gateway g: Int, into out: inout [EngineOutput]) {
        statistics.sightings += 1
        if o.time < watermark { statistics.lateSightings += 1 }
        let ti = devices.track(of: o.device) ?? newTrack(DeviceID(validatedUTF8: o.device))
        let rssi = Double(o.rssi) + gatewayCalibration[g]
        gateways[g].noteRSSI(rssi)
        if o.time > gateways[g].lastHeard { gateways[g].lastHeard = o.time }
        let power = o.measuredPower.map(Double.init) ?? tuning.defaultMeasuredPower
        let r = tuning.measurementNoiseDB * tuning.measurementNoiseDB
        tracks[ti].lastSeen = max(tracks[ti].lastSeen, o.time)
        if let li = tracks[ti].linkIndex(Int32(g)) {
            tracks[ti].links[li].filter.update(rssi: rssi, time: o.time, processNoise: tuning.processNoise, measurementVariance: r)
            tracks[ti].links[li].lastRSSI = rssi
            tracks[ti].links[li].measuredPower = power
        } else {
            let link = Link(
                gateway: Int32(g), section: gatewaySection[g], store: gatewayStore[g],
                filter: RSSIFilter(rssi: rssi, time: o.time, measurementVariance: r), lastRSSI: rssi, measuredPower: power)
            if tracks[ti].links.count < DeviceTrack.maxLinks {
                tracks[ti].links.append(link)
            } else if let slot = linkToReplace(ti, newRSSI: rssi, at: o.time) {
                tracks[ti].links[slot] = link
            }
        }

        let store = Int(gatewayStore[g])
        // Decisions run on the device's own clock, which never goes back: reports from different
        // gateways interleave, and an older one must not date a decision before an earlier one.
        let t = tracks[ti].lastSeen
        switch tracks[ti].state {
        case .outside:
            // A sighting from before the exit (a gateway's backlog arriving late) is history, not
            // evidence of a return: it would re-enter the device behind its own exit.
            guard o.time > tracks[ti].stateSince else { return }
            if tracks[ti].streetExitStore == store && t - tracks[ti].streetExitAt < Street.reentryGuard {
                // Seen walking away from this store a moment ago: back in only once it no longer
                // looks like the street.
                _ = streetStep(ti, store: store, at: t)
                guard tracks[ti].streetP < Street.reentryProbability else { return }
            }
            if gatherEntryEvidence(ti, store: store, at: t) {
                enterStore(ti, store: store, at: t, into: &out)
            }
        case .inside, .unknown:
            if store == tracks[ti].store {
                tracks[ti].lastSeenInStore = max(tracks[ti].lastSeenInStore, o.time)
                tracks[ti].countSighting(at: o.time)
                if tracks[ti].state == .unknown {
                    // A gateway hears it again: it never left. No enter event, only the state.
                    tracks[ti].state = .inside
                    // Not before the unknown spell it ends (a batch can carry older sightings).
                    tracks[ti].stateSince = max(t, tracks[ti].stateSince)
                    decideSection(ti, at: t, into: &out)
                    emitState(ti, at: t, into: &out)
                } else {
                    decideSection(ti, at: t, into: &out)
                    if streetModels[store] != nil && streetStep(ti, store: store, at: t) {
                        exitStore(ti, at: t, into: &out)
                        tracks[ti].streetExitStore = store
                        tracks[ti].streetExitAt = t
                    }
                }
            } else if gatherEntryEvidence(ti, store: store, at: t) {
                // Heard convincingly in another store while the current one has gone quiet: it moved.
                let quiet = t - tracks[ti].lastSeenInStore >= Int64(tuning.staleAfterSeconds * 1000)
                if quiet {
                    exitStore(ti, at: t, into: &out)
                    enterStore(ti, store: store, at: t, into: &out)
                }
            }
        }
    }

    /// Counts a sighting towards entering `store`; true once there is enough evidence.
    mutating func gatherEntryEvidence(_ ti: Int, store: Int, at t: Int64) -> Bool {
        let window = Int64(tuning.enterWindowSeconds * 1000)
        if tracks[ti].candidateStore != store || t - tracks[ti].candidateStart > window {
            tracks[ti].candidateStore = store
            tracks[ti].candidateStart = t
            tracks[ti].candidateCount = 0
        }
        tracks[ti].candidateCount += 1
        return tracks[ti].candidateCount >= tuning.minSightingsToEnter
    }

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
        return index
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
