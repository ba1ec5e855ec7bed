extension AggregationEngine {
    /// Decisions at the watermark: a device's section, and a store entry with its first section,
    /// are decided on the evidence of every live gateway of the store for that moment — once each
    /// has reported up to it, or once the watermark has passed it (a gateway that lags that much is
    /// not waited for) — never on whichever gateway's batch happened to arrive first.

    /// Puts `track` in `store`'s queue of decisions awaiting the store's gateways (once).
    mutating func queue(_ track: Int, in store: Int) {
        guard tracks[track].queuedIn != store else { return }
        tracks[track].queuedIn = store
        awaiting[store].append(track)
    }

    /// After a batch of one of `store`'s gateways: decides what its gateways now all cover.
    mutating func decideAwaiting(inStoreOf gateway: Int, into out: inout [EngineOutput]) {
        let store = Int(gatewayStore[gateway])
        guard !awaiting[store].isEmpty, let watermark = clock.watermark else { return }
        let horizon = max(heardTo(store: store, listening(at: watermark), forDecisions: true) ?? watermark, watermark)
        decideAwaiting(store: store, upTo: horizon, into: &out)
    }

    /// Makes every decision waiting in `store`'s queue whose moment `horizon` covers; the rest wait.
    mutating func decideAwaiting(store: Int, upTo horizon: EventTime, into out: inout [EngineOutput]) {
        let queued = awaiting[store]
        awaiting[store] = []
        var waiting: [Int] = []
        for track in queued {
            if let entry = tracks[track].entry, entry.store == store, let ready = entry.readyAt {
                guard ready <= horizon else {
                    waiting.append(track)
                    continue
                }
                tracks[track].entry = nil
                completeEntry(track, store: store, at: ready, into: &out)
            }
            if let since = tracks[track].pendingSection, tracks[track].store == store {
                guard since <= horizon else {
                    waiting.append(track)
                    continue
                }
                tracks[track].pendingSection = nil
                let now = max(since, min(tracks[track].lastSeen ?? since, horizon))
                decideSectionAndStreet(track, store: store, at: now, into: &out)
            }
            if tracks[track].queuedIn == store { tracks[track].queuedIn = nil }
        }
        for track in waiting where tracks[track].queuedIn == nil { tracks[track].queuedIn = store }
        awaiting[store] = waiting + awaiting[store]
    }

    /// The entry into `store` that was ready at `time`: from outside, an entry — once the rule
    /// consents, where it knows what just outside the store looks like (refused, the sightings
    /// gather again); from another store that had gone quiet about the device then, a move.
    private mutating func completeEntry(_ track: Int, store: Int, at time: EventTime, into out: inout [EngineOutput]) {
        switch tracks[track].state {
        case .outside:
            guard admitted(track, to: store, at: time) else { return }
            enterStore(track, store: store, at: time, into: &out)
        case .inside, .unknown:
            guard tracks[track].store != store else { return }
            exitStore(track, at: time, into: &out)
            enterStore(track, store: store, at: time, into: &out)
        }
    }

    /// The section rule's decision, then the street test, for a device inside its store.
    private mutating func decideSectionAndStreet(_ track: Int, store: Int, at time: EventTime, into out: inout [EngineOutput]) {
        guard tracks[track].isInStore else { return }
        decideSection(track, at: time, into: &out)
        if tracks[track].state == .inside && streetModels[store] != nil && streetStep(track, store: store, at: time) {
            exitStore(track, at: time, into: &out)
            tracks[track].street.exit = (store, time)
        }
    }
}
