/// Which store and section every device is in, by track, and the occupancy that follows: the one
/// owner of entering, leaving and moving, each a method that says what changed. Also the queue,
/// per store, of decisions waiting until the store's gateways have all reported up to them.
struct StorePresence: Sendable {
    /// Per track.
    private(set) var devices: [DevicePresence] = []
    /// Per store, the tracks whose section or entry awaits the store's gateways.
    private var awaiting: [[Int]]
    /// Devices per store and section.
    private(set) var occupancy: OccupancyTally

    init(chain: Chain) {
        awaiting = Array(repeating: [], count: chain.stores.count)
        occupancy = OccupancyTally(stores: chain.stores.count, sectionStore: chain.sections.map(\.store))
    }

    /// The device on `track`.
    subscript(track: Int) -> DevicePresence { devices[track] }

    /// Track `track` now holds a device first heard (or restored as last heard) at `time`.
    mutating func start(_ track: Int, seen time: EventTime) {
        if track < devices.count {
            devices[track] = DevicePresence(seen: time)
        } else {
            devices.append(DevicePresence(seen: time))
        }
    }

    /// A gateway heard the device at `time`.
    @inline(__always)
    mutating func noteSighting(_ track: Int, at time: EventTime) {
        devices[track].lastSeen = max(devices[track].lastSeen, time)
    }

    // MARK: Entering and leaving

    /// The device enters `store` at `time`, in no section yet; `heardSince` is its latest report
    /// from the store's gateways (sightings that came in while the entry awaited them count as in it).
    mutating func enter(_ track: Int, store: Int, at time: EventTime, heardSince: EventTime?) {
        devices[track].presence = .inside(Visit(store: store, since: time), since: time)
        devices[track].lastSeenInStore = max(time, heardSince ?? time)
        devices[track].entry = nil
        devices[track].rate = ReceptionRate()
        devices[track].rate.count(at: time)
        occupancy.add(1, store: store, at: time)
    }

    /// The device leaves its store at `time`; returns the visit that ended (nil: it was not in one).
    mutating func exit(_ track: Int, at time: EventTime) -> Visit? {
        guard let visit = devices[track].presence.visit else { return nil }
        if let section = visit.section { occupancy.add(-1, section: section.index, at: time) }
        occupancy.add(-1, store: visit.store, at: time)
        devices[track].presence = .outside(Departure(store: visit.store, section: visit.section?.index, time: time))
        return visit
    }

    /// The device, in a store (inside or unknown), moves to `section` at `time` (or into its
    /// first section); returns the section it left and since when, if it had one.
    mutating func move(_ track: Int, to section: Int, at time: EventTime) -> (index: Int, since: EventTime)? {
        let presence = devices[track].presence
        guard var visit = presence.visit else { preconditionFailure("a section move for a device in no store") }
        let old = visit.section
        if let old { occupancy.add(-1, section: old.index, at: time) }
        visit.section = (section, time)
        switch presence {
        case .inside(_, let since): devices[track].presence = .inside(visit, since: since)
        case .unknown(_, let since): devices[track].presence = .unknown(visit, since: since)
        case .outside: break
        }
        occupancy.add(1, section: section, at: time)
        return old
    }

    /// The gateways that could hear the device, inside, are down at `watermark`: it is `unknown`
    /// from then (or from its last sighting, if later). Returns when, or nil if it was not inside.
    mutating func markUnknown(_ track: Int, at watermark: EventTime) -> EventTime? {
        guard case .inside(let visit, _) = devices[track].presence else { return nil }
        let since = max(watermark, devices[track].lastSeen)
        devices[track].presence = .unknown(visit, since: since)
        return since
    }

    /// A gateway of the device's own store heard it at `time` (`now` on the device's own clock):
    /// an `unknown` device is inside again — returns true then (no enter event, only its state) —
    /// and its section is to be decided once the store's gateways have all reported up to `now`.
    mutating func heardInOwnStore(_ track: Int, store: Int, at time: EventTime, now: EventTime) -> Bool {
        devices[track].lastSeenInStore = max(devices[track].lastSeenInStore ?? time, time)
        devices[track].rate.count(at: time)
        var cameBack = false
        if case .unknown(let visit, let since) = devices[track].presence {
            // Not before the unknown spell it ends (a batch can carry older sightings).
            devices[track].presence = .inside(visit, since: max(now, since))
            cameBack = true
        }
        if devices[track].pendingSection == nil { devices[track].pendingSection = now }
        queue(track, in: store)
        return cameBack
    }

    /// Counts a sighting at `time` towards entering `store` (`min_sightings` within `window`);
    /// once there is enough evidence the entry awaits the store's gateways, dated `time`. A
    /// device in another store needs besides that its own store has gone quiet about it
    /// (`ownStoreQuiet`), or that `store`'s strongest fresh level (`levels.there`) has led its own
    /// store's by more than `margin` for long enough (``EntryCandidate/storeLeads(there:here:margin:at:longestStep:)``).
    mutating func gatherEntryEvidence(_ track: Int, store: Int, at time: EventTime, rules: EntryRules,
                                      levels: (there: Double?, here: Double?)?, ownStoreQuiet: Bool) {
        if let entry = devices[track].entry, entry.store == store, entry.readyAt != nil { return }
        var candidate = devices[track].entry ?? EntryCandidate(store: store, start: time)
        if candidate.store != store || time - candidate.start > rules.window {
            candidate = EntryCandidate(store: store, start: time, lead: candidate.store == store ? candidate.lead : nil)
        }
        candidate.count += 1
        var ready = candidate.count >= rules.minimumSightings
        if let levels {
            let leads = levels.there.map {
                candidate.storeLeads(there: $0, here: levels.here, margin: rules.margin, at: time, longestStep: rules.stale)
            } ?? false
            ready = ready && (ownStoreQuiet || leads)
        }
        if ready {
            candidate.readyAt = time
            queue(track, in: store)
        }
        devices[track].entry = candidate
    }

    /// Forgets the device's entry evidence (its entry was made, or refused).
    mutating func dropEntry(_ track: Int) { devices[track].entry = nil }

    /// Puts back a device's state as a previous run published it (``AggregationEngine/restore(_:into:)``).
    mutating func restore(_ track: Int, _ presence: Presence, lastSeen: EventTime) {
        devices[track].presence = presence
        devices[track].lastSeen = lastSeen
        guard let visit = presence.visit else { return }
        devices[track].lastSeenInStore = lastSeen
        occupancy.add(1, store: visit.store, at: nil)
        if let section = visit.section { occupancy.add(1, section: section.index, at: nil) }
    }

    /// At the sweep at `watermark`: the occupancy counts to publish (``OccupancyTally/flush(at:)``).
    mutating func flushOccupancy(at watermark: EventTime) -> [OccupancyCount] { occupancy.flush(at: watermark) }
}

/// Decisions at the watermark: a device's section, and a store entry with its first section,
/// are decided on the evidence of every live gateway of the store for that moment — once each has
/// reported up to it, or once the watermark has passed it (a gateway that lags that much is not
/// waited for) — never on whichever gateway's batch happened to arrive first.
extension StorePresence {
    /// A decision about the device waiting in a store's queue.
    enum AwaitedDecision {
        /// Its entry, ready at `at`.
        case entry(at: EventTime)
        /// Its section, heard in the store from `since` on.
        case section(since: EventTime)
    }

    /// Puts `track` in `store`'s queue of decisions awaiting the store's gateways (once).
    mutating func queue(_ track: Int, in store: Int) {
        guard devices[track].queuedIn != store else { return }
        devices[track].queuedIn = store
        awaiting[store].append(track)
    }

    /// Whether anything waits in `store`'s queue.
    func isAwaiting(_ store: Int) -> Bool { !awaiting[store].isEmpty }

    /// The stores with something in their queue.
    var storesAwaiting: [Int] { awaiting.indices.filter { !awaiting[$0].isEmpty } }

    /// Empties `store`'s queue for working through: each track in it is then either decided or
    /// handed back (``requeue(_:in:)``).
    mutating func takeQueue(of store: Int) -> [Int] {
        let queued = awaiting[store]
        awaiting[store] = []
        return queued
    }

    /// The next decision about `track` in `store`'s queue that `horizon` covers, taken off it;
    /// nil when none is left. `waits` turns true when one is not covered yet: the track then
    /// stays in the queue.
    mutating func nextDecision(_ track: Int, in store: Int, upTo horizon: EventTime, waits: inout Bool) -> AwaitedDecision? {
        if let entry = devices[track].entry, entry.store == store, let ready = entry.readyAt {
            guard ready <= horizon else {
                waits = true
                return nil
            }
            devices[track].entry = nil
            return .entry(at: ready)
        }
        if let since = devices[track].pendingSection, devices[track].presence.store == store {
            guard since <= horizon else {
                waits = true
                return nil
            }
            devices[track].pendingSection = nil
            return .section(since: since)
        }
        return nil
    }

    /// `track` has nothing more decided in `store`'s queue for now.
    mutating func leaveQueue(_ track: Int, of store: Int) {
        if devices[track].queuedIn == store { devices[track].queuedIn = nil }
    }

    /// Hands back the tracks of `store`'s queue still waiting, ahead of those queued meanwhile.
    mutating func requeue(_ waiting: [Int], in store: Int) {
        for track in waiting where devices[track].queuedIn == nil { devices[track].queuedIn = store }
        awaiting[store] = waiting + awaiting[store]
    }
}

/// What entering a store takes (`min_sightings_to_enter` within `enter_window_s`; between stores,
/// `switch_margin_db` over `stale_after_s` steps).
struct EntryRules: Sendable {
    var minimumSightings: Int
    var window: EventDuration
    var margin: Double
    var stale: EventDuration

    init(tuning: Tuning) {
        minimumSightings = tuning.minSightingsToEnter
        window = tuning.enterWindow
        margin = tuning.switchMarginDB
        stale = tuning.staleAfter
    }
}
