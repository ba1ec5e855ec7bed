import Foundation
public import BeaconCore

extension AggregationEngine {
    /// Time-driven decisions at the watermark `w`: exits for silence, `unknown` when the gateways
    /// that could hear a device are offline, dwell completion, occupancy, forgetting.
    mutating func sweep(at w: Int64, into out: inout [EngineOutput]) {
        let silence = Int64(tuning.gatewaySilenceSeconds * 1000)
        let timeout = Int64(tuning.exitTimeoutSeconds * 1000)
        // Per store, up to when all its live gateways have reported (the earliest last batch): a
        // device's silence is evidence only up to there — a gateway with a long window or a clock
        // behind may yet report it, whichever gateway heard it last.
        // In the first minute after start a gateway not heard yet may be one with a long window
        // still filling its first: it holds the store's silences at the start until it reports.
        var heardTo = [Int64](repeating: .max, count: chain.stores.count)
        let arrival: Int64? = arrivalNow == .min ? nil : arrivalNow
        // Live, a start is measured on the arrival clock (a backlog replays minutes of event time
        // in seconds); in a replay, on event time.
        let starting = arrival != nil ? firstArrival != .min && arrivalNow - firstArrival <= Self.replayWindow
            : firstEventTime != .min && w - firstEventTime <= GatewayTrack.maxInterval
        // For a while after the live service's connection comes back (a broker outage), or after
        // it starts, every gateway known is awaited: its backlog may be queued behind the
        // others', and it may reconnect later than they do (the edges' back-off).
        let replaying = arrival != nil && (reconnectedAt != .min && arrivalNow - reconnectedAt <= Self.replayWindow || starting)
        for (store, entry) in chain.stores.enumerated() {
            for g in entry.gateways {
                if isAlive(g, at: w, arrival: arrival, replaying: replaying, silence: silence) {
                    // A gateway whose reports lag the chain beyond its usual gap (a clock far
                    // behind) holds only the devices it heard itself (see silenceEvidence) —
                    // unless a replay after a reconnection is under way: it may be catching up.
                    let covered = gateways[g].coveredTo(at: w)
                    if replaying || w - covered <= max(silence, gateways[g].longestGap) { heardTo[store] = min(heardTo[store], covered) }
                } else if starting && gateways[g].lastBatch == .min {
                    // Resumed from a snapshot, it has reported up to its last batch before the
                    // restart, which a broker outage may put well before this run's first event.
                    heardTo[store] = min(heardTo[store], firstEventTime, gateways[g].current?.newestSent ?? .max)
                }
            }
        }
        for ti in tracks.indices {
            switch tracks[ti].state {
            case .outside:
                if tracks[ti].lastSeen != .min, w - tracks[ti].lastSeen > Self.forgetAfter {
                    forget(ti)
                }
            case .inside, .unknown:
                let threshold = exitThreshold(ti)
                switch silenceEvidence(ti, at: w, arrival: arrival, replaying: replaying, starting: starting, silence: silence,
                                       heardTo: heardTo[tracks[ti].store], threshold: threshold) {
                case .listening(let quiet, let since):
                    if quiet > threshold {
                        exitStore(ti, at: exitTime(ti, at: w, since: since, threshold: threshold, overdue: quiet - threshold), into: &out)
                    } else if tracks[ti].challenger >= 0 {
                        decideSection(ti, at: w, into: &out)
                    }
                case .deaf(let quiet, let since):
                    // The gateways that could hear it are down: nobody can tell where it is...
                    if let quiet, quiet > timeout {
                        // ...but the rest of the store has listened for the whole exit timeout
                        // and heard nothing: it has left.
                        exitStore(ti, at: exitTime(ti, at: w, since: since, threshold: timeout, overdue: quiet - timeout), into: &out)
                    } else if tracks[ti].state == .inside {
                        tracks[ti].state = .unknown
                        tracks[ti].stateSince = max(w, tracks[ti].lastSeen)
                        emitState(ti, at: tracks[ti].stateSince, into: &out)
                    }
                }
            }
        }
        if lastOccupancyFlush == .min || w - lastOccupancyFlush >= Self.occupancyInterval {
            flushOccupancy(at: w, into: &out)
            lastOccupancyFlush = w
        }
    }

    /// How long after the live service's connection comes back every gateway known before is
    /// awaited (arrival clock, ms): a backlog of minutes replays in seconds, and edges reconnect
    /// within 10 s of the broker's return (their back-off), more in a connection storm.
    static let replayWindow: Int64 = 60_000

    /// Alive: online by its batches or their arrival, or awaited while a replay after a
    /// reconnection is under way — if it was alive when the connection went (the arrival clock
    /// stood still since) or has delivered since, and no Last Will said otherwise. A gateway dead
    /// before the outage is not awaited, so a connection that keeps flapping cannot hold exits.
    @inline(__always)
    func isAlive(_ g: Int, at w: Int64, arrival: Int64?, replaying: Bool, silence: Int64) -> Bool {
        let gateway = gateways[g]
        if gateway.isOnline(at: w, arrival: arrival, silence: silence) { return true }
        guard replaying, !gateway.reportedOffline, gateway.lastBatch != .min else { return false }
        return gateway.arrivedAt >= reconnectedAt || reconnectedAt - gateway.arrivedAt <= max(silence, gateway.longestGap)
    }

    /// When the silence counted from `since` reached its threshold (or, with no `since`, when one
    /// `overdue` ms past it at the watermark `w` did): the exit's event time. Live, that is within a sweep of `w`; after a backlog replayed in a
    /// second (a broker outage) it is when the recorded silence was long enough, not when the
    /// replay got there. Never before the device's last sighting or its current state's or
    /// section's start (which can lie a little past `w`), so a device's events stay in order.
    func exitTime(_ ti: Int, at w: Int64, since: Int64?, threshold: Int64, overdue: Int64) -> Int64 {
        let reached = since.map { $0 + threshold + 1 } ?? w - overdue + 1
        return max(min(reached, w), tracks[ti].lastSeen + 1, tracks[ti].stateSince, tracks[ti].sectionSince)
    }

    /// How long a silence means the device has left, ms.
    ///
    /// `timeout`: the fixed exit timeout. `adaptive`: if the store's gateways were hearing the device
    /// at λ sightings/s, a silence of T seconds while it is still inside has probability e^(−λT)
    /// (Poisson reception); exit when that falls below `exit_false_probability`, i.e.
    /// T = ln(1/p)/λ, clamped to [`exit_min_s`, `exit_timeout_s`]. Without enough history to know λ
    /// the fixed timeout applies.
    func exitThreshold(_ ti: Int) -> Int64 {
        let timeout = tuning.exitTimeoutSeconds
        guard tuning.exitRule == .adaptive,
              let rate = DeviceTrack.receptionRate(count: tracks[ti].rateCount, time: tracks[ti].rateTime, since: tracks[ti].rateSince),
              rate > 0 else {
            return Int64(timeout * 1000)
        }
        let seconds = log(1 / tuning.exitFalseProbability) / rate
        return Int64(min(timeout, max(tuning.exitMinSeconds, seconds)) * 1000)
    }

    /// How long a device inside has gone unheard by gateways that were listening.
    enum SilenceEvidence {
        /// A gateway that heard it lately is alive: how long every live gateway of the store has
        /// listened (their batches, heartbeats included, say up to when) since the device's last
        /// sighting, or since a gateway that heard it lately came back, without hearing it.
        case listening(quiet: Int64, since: Int64?)
        /// Every gateway that heard it lately is down (restored after a restart: every gateway of
        /// its section). With every other gateway of the store alive, how long all of them have
        /// listened without hearing it; nil while one of them is down too. Gateways never heard
        /// from (not installed yet) and gateways already down when the device was last heard are
        /// not waited for.
        case deaf(quiet: Int64?, since: Int64?)
    }

    /// A silence is evidence only while someone listens. It counts from the device's last sighting
    /// in its store, or from the latest return (or hole in the batches) of a live gateway that
    /// heard it lately, up to the earliest last batch of the store's live gateways (`heardTo`, see
    /// ``sweep(at:into:)``) — not up to the watermark, which a late backlog, the service's clock
    /// or another store's gateway may have moved past what they have reported. A gateway heard
    /// the device "lately" if within `stale_after_s`, or two of its batch windows, of its last
    /// sighting.
    ///
    /// Runs for every device inside at every sweep: it reads the track's scalars and borrows its
    /// links rather than copying the track (a copy retains its id and arrays).
    func silenceEvidence(_ ti: Int, at w: Int64, arrival: Int64?, replaying: Bool, starting: Bool, silence: Int64,
                         heardTo: Int64, threshold: Int64) -> SilenceEvidence {
        let store = tracks[ti].store
        let lastSeen = tracks[ti].lastSeenInStore
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        typealias Found = (start: Int64?, own: Int64, any: Bool, pre: Int64?, preEnd: Int64, preOwn: Int64)
        let found: Found = tracks[ti].links.withUnsafeBufferPointer { links in
            var start: Int64?, own = Int64.max, any = false
            // The same over the runs before the gateways' last breaks, where one held a whole
            // silence (``GatewayTrack/silenceStart(after:threshold:)``).
            var pre: Int64?, preEnd = Int64.max, preOwn = Int64.max
            for link in links where Int(link.store) == store && isRecent(link, lastSeen: lastSeen, stale: stale) {
                any = true
                let gateway = gateways[Int(link.gateway)]
                guard isAlive(Int(link.gateway), at: w, arrival: arrival, replaying: replaying, silence: silence) else { continue }
                start = max(start ?? lastSeen, gateway.aliveSince)
                // Its own silence about the device, on its own clock: what holds a device that a
                // gateway with a lagging clock still hears.
                let covered = gateway.coveredTo(at: w)
                own = min(own, covered - max(link.filter.time, gateway.aliveSince))
                let run = gateway.silenceStart(after: lastSeen, threshold: threshold)
                pre = max(pre ?? lastSeen, run.from)
                preEnd = min(preEnd, run.until ?? .max)
                preOwn = min(preOwn, (run.until ?? covered) - max(link.filter.time, run.from))
            }
            return (start, own, any, pre, preEnd, preOwn)
        }
        let (start, own, anyRecent) = (found.start, found.own, found.any)
        if let start {
            // A silence long enough before a gateway's break (its edge restarted later, during an
            // outage): decided by that, dated within it.
            if let pre = found.pre, found.preEnd != .max {
                let preStore = min(w, heardTo, found.preEnd) - pre
                if min(preStore, found.preOwn) > threshold {
                    return .listening(quiet: min(preStore, found.preOwn), since: preStore <= found.preOwn ? pre : nil)
                }
            }
            let store = min(w, heardTo) - start
            // `since`: where the silence that decides was counted from, on the chain's time (not
            // when a lagging gateway's own silence decides: that one is on its clock).
            return .listening(quiet: min(store, own), since: store <= own ? start : nil)
        }
        // Restored after a restart, a device has no links yet: its section's gateways (or, with
        // no section, its store's) stand in for the ones that heard it.
        let section = tracks[ti].section
        let standIns = anyRecent ? [] : (section >= 0 ? chain.sections[section].gateways : chain.stores[store].gateways)
        var standInFrom: Int64?, standInPre: Int64?, standInPreEnd = Int64.max
        for g in standIns {
            if isAlive(g, at: w, arrival: arrival, replaying: replaying, silence: silence) {
                standInFrom = max(standInFrom ?? lastSeen, gateways[g].aliveSince)
                let run = gateways[g].silenceStart(after: lastSeen, threshold: threshold)
                standInPre = max(standInPre ?? lastSeen, run.from)
                standInPreEnd = min(standInPreEnd, run.until ?? .max)
            } else if starting && gateways[g].lastBatch == .min && !gateways[g].reportedOffline {
                // Not heard from since the start yet — a later phase or a longer window than the
                // rest, a backlog behind theirs: awaited, as the store's silences are (`heardTo`
                // holds at the start), not taken for down (an `unknown` blip on every restart).
                standInFrom = max(standInFrom ?? lastSeen, firstEventTime)
                standInPre = max(standInPre ?? lastSeen, firstEventTime)
            }
        }
        if let standInFrom {
            if let standInPre, standInPreEnd != .max, min(w, heardTo, standInPreEnd) - standInPre > threshold {
                return .listening(quiet: min(w, heardTo, standInPreEnd) - standInPre, since: standInPre)
            }
            return .listening(quiet: min(w, heardTo) - standInFrom, since: standInFrom)
        }
        var from = lastSeen, to = w, others = 0
        for g in chain.stores[store].gateways where !hasRecentLink(ti, gateway: g, lastSeen: lastSeen, stale: stale) && !standIns.contains(g) {
            let gateway = gateways[g]
            let up = isAlive(g, at: w, arrival: arrival, replaying: replaying, silence: silence)
            if !up && !gateway.wasReporting(at: lastSeen, silence: silence) { continue }
            guard up else { return .deaf(quiet: nil, since: nil) }
            from = max(from, gateways[g].aliveSince)
            to = min(to, gateways[g].coveredTo(at: w))
            others += 1
        }
        return .deaf(quiet: others > 0 ? to - from : nil, since: from)
    }

    /// Whether `link`'s gateway heard the device lately: within `stale_after_s`, or two of its
    /// batch windows (two minutes before its window is known), of the device's last sighting in
    /// the store.
    @inline(__always)
    func isRecent(_ link: Link, lastSeen: Int64, stale: Int64) -> Bool {
        let interval = gateways[Int(link.gateway)].interval
        return link.filter.time >= lastSeen - max(stale, 2 * (interval > 0 ? interval : GatewayTrack.maxInterval))
    }

    func hasRecentLink(_ ti: Int, gateway g: Int, lastSeen: Int64, stale: Int64) -> Bool {
        tracks[ti].links.contains { Int($0.gateway) == g && isRecent($0, lastSeen: lastSeen, stale: stale) }
    }

    mutating func flushOccupancy(at w: Int64, into out: inout [EngineOutput]) {
        // The watermark lags event time; a count must not be older than the enter that made it.
        let w = max(w, occupancyChangedAt)
        for store in dirtyStores.sorted() {
            out.append(.occupancy(OccupancyCount(store: store, section: nil, count: storeCount[store], time: w)))
        }
        for section in dirtySections.sorted() {
            out.append(.occupancy(OccupancyCount(
                store: chain.sections[section].store, section: section, count: sectionCount[section], time: w)))
        }
        dirtyStores.removeAll(keepingCapacity: true)
        dirtySections.removeAll(keepingCapacity: true)
    }

    mutating func forget(_ ti: Int) {
        devices.remove(track: ti)
        tracks[ti].links = []
        tracks[ti].lastSeen = .min
        freeTracks.append(ti)
    }

    // MARK: - Restart

    /// Restores devices from their last published states (retained topics or a snapshot file)
    /// before any sighting is processed, so that a restart invents no enter event, forgets no
    /// one inside, and keeps the per-device sequence of those outside (until they are forgotten). States naming stores not in the chain are skipped and returned; a section the
    /// chain no longer has restores the store only (the next sightings place the device).
    @discardableResult
    public mutating func restore(_ snapshots: [RestoredState]) -> [RestoredState] {
        var out: [EngineOutput] = []
        let skipped = restore(snapshots, into: &out)
        precondition(out.isEmpty, "states with an exit to decide again need restore(_:into:)")
        return skipped
    }

    /// The same; exits a previous run decided that never reached the broker
    /// (``RestoredState/exitAt``) are decided again here, at their own time, and appended to `out`
    /// — before anything else, so that a device back by then enters afresh instead of continuing
    /// a stale visit.
    @discardableResult
    public mutating func restore(_ snapshots: [RestoredState], into out: inout [EngineOutput]) -> [RestoredState] {
        var skipped: [RestoredState] = []
        var exits: [(track: Int, at: Int64)] = []
        for s in snapshots {
            guard let store = chain.storeIndex[s.store] else {
                skipped.append(s)
                continue
            }
            let ti = devices.track(of: s.device) ?? newTrack(s.device)
            if s.state == .outside {
                // Only its sequence matters: a device that comes back before it would have been
                // forgotten goes on counting where it left off, across the restart.
                tracks[ti].state = .outside
                tracks[ti].store = store
                tracks[ti].stateSince = s.since
                tracks[ti].lastSeen = s.lastSeen
                tracks[ti].sequence = s.sequence
                continue
            }
            let section = s.section.flatMap { chain.sectionIndex(store: s.store, section: $0) } ?? -1
            tracks[ti].state = s.state
            tracks[ti].store = store
            tracks[ti].section = section
            tracks[ti].stateSince = s.since
            tracks[ti].storeSince = s.storeSince ?? s.since
            tracks[ti].sectionSince = s.sectionSince ?? s.since
            tracks[ti].lastSeen = s.lastSeen
            tracks[ti].lastSeenInStore = s.lastSeen
            tracks[ti].sequence = s.sequence
            if let exit = s.exitAt { exits.append((ti, exit)) }
            storeCount[store] += 1
            dirtyStores.insert(store)
            if section >= 0 {
                sectionCount[section] += 1
                dirtySections.insert(section)
            }
        }
        for (ti, at) in exits where devices.isLive(ti) && tracks[ti].state != .outside {
            // `at` is the exit the previous run decided, after the visit's last sighting; the
            // restored `last_seen` may be later (heard outside since, as the file says).
            exitStore(ti, at: max(at, tracks[ti].stateSince, tracks[ti].sectionSince, tracks[ti].storeSince), into: &out)
        }
        return skipped
    }

    /// Every device remembered, outside ones included (forgotten 10 minutes after they were last
    /// heard): what a snapshot keeps, so that a device's `seq` goes on across a restart.
    public func rememberedStates() -> [DeviceSnapshot] {
        tracks.indices.compactMap { ti in
            devices.isLive(ti) && (tracks[ti].state != .outside || tracks[ti].store >= 0) ? snapshot(tracks[ti]) : nil
        }
    }

    /// `device`'s state if it is inside a store or `unknown`, else nil.
    public func currentState(of device: DeviceID) -> DeviceSnapshot? {
        guard let ti = devices.track(of: device), devices.isLive(ti), tracks[ti].state != .outside else { return nil }
        return snapshot(tracks[ti])
    }
}

/// A device state read back at start-up, in the chain's own numbers (major/minor), since indices
/// mean nothing across configs.
public struct RestoredState: Sendable, Equatable {
    public var device: DeviceID
    public var state: PresenceState
    public var store: StoreNumber
    public var section: SectionNumber?
    public var since: Int64
    public var storeSince: Int64?
    public var sectionSince: Int64?
    public var lastSeen: Int64
    public var sequence: UInt64
    /// When the device exited, if a previous run decided that exit but it never reached the broker:
    /// decided again at that time (same `seq`s follow) before anything else.
    public var exitAt: Int64?

    public init(device: DeviceID, state: PresenceState, store: StoreNumber, section: SectionNumber?, since: Int64,
                storeSince: Int64? = nil, sectionSince: Int64? = nil, lastSeen: Int64, sequence: UInt64, exitAt: Int64? = nil) {
        self.exitAt = exitAt
        self.device = device
        self.state = state
        self.store = store
        self.section = section
        self.since = since
        self.storeSince = storeSince
        self.sectionSince = sectionSince
        self.lastSeen = lastSeen
        self.sequence = sequence
    }
}

extension AggregationEngine {
    /// Where the engine has a device now: state, store and section indices (nil when untracked).
    public func current(_ device: DeviceID) -> (state: PresenceState, store: Int?, section: Int?)? {
        guard let ti = devices.track(of: device) else { return nil }
        let t = tracks[ti]
        return (t.state, t.store >= 0 ? t.store : nil, t.section >= 0 ? t.section : nil)
    }
}
