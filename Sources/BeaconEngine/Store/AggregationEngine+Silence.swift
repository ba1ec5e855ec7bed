extension AggregationEngine {
    /// How long a device inside has gone unheard by gateways that were listening.
    enum SilenceEvidence {
        /// A gateway that heard it lately is alive: how long every live gateway of the store has
        /// listened (their batches, heartbeats included, say up to when) since the device's last
        /// sighting, or since a gateway that heard it lately came back, without hearing it; and
        /// where that silence was counted from, on the chain's time (nil when a lagging gateway's
        /// own silence decides: that one is on its clock).
        case listening(quiet: Int64, since: EventTime?)
        /// Every gateway that heard it lately is down (restored after a restart: every gateway of
        /// its section). With every other gateway of the store alive, how long all of them have
        /// listened without hearing it; nil while one of them is down too. Gateways never heard
        /// from (not installed yet) and gateways already down when the device was last heard are
        /// not waited for.
        case deaf(quiet: Int64?, since: EventTime?)
    }

    /// A silence is evidence only while someone listens. It counts from the device's last sighting
    /// in its store, or from the latest return (or hole in the batches) of a live gateway that
    /// heard it lately, up to the earliest last batch of the store's live gateways (`heardTo`, see
    /// ``storesHeardTo(_:)``) — not up to the watermark, which a late backlog, the service's clock
    /// or another store's gateway may have moved past what they have reported. A gateway heard
    /// the device "lately" if within `stale_after_s`, or two of its batch windows, of its last
    /// sighting.
    ///
    /// Runs for every device inside at every sweep: it reads the track's scalars and borrows its
    /// links rather than copying the track (a copy retains its id and arrays).
    func silenceEvidence(_ track: Int, _ listening: Listening, heardTo: EventTime?, threshold: Int64) -> SilenceEvidence {
        let lastSeen = tracks[track].lastSeenInStore ?? listening.watermark
        let reported = heardTo.map { min(listening.watermark, $0) } ?? listening.watermark
        let recent = recentGatewaysSilence(track, listening, lastSeen: lastSeen, threshold: threshold)
        if let start = recent.start, let own = recent.own {
            // A silence long enough before a gateway's break (its edge restarted later, during an
            // outage): decided by that, dated within it.
            if let pre = recent.preStart, let preEnd = recent.preEnd, let preOwn = recent.preOwn {
                let preStore = min(reported, preEnd) - pre
                if min(preStore, preOwn) > threshold {
                    return .listening(quiet: min(preStore, preOwn), since: preStore <= preOwn ? pre : nil)
                }
            }
            let store = reported - start
            return .listening(quiet: min(store, own), since: store <= own ? start : nil)
        }
        // Restored after a restart, a device has no links yet: its section's gateways (or, with
        // no section, its store's) stand in for the ones that heard it.
        let standIns = recent.anyRecent ? [] : standInGateways(track)
        if let evidence = standInSilence(standIns, listening, lastSeen: lastSeen, reported: reported, threshold: threshold) {
            return evidence
        }
        return othersSilence(track, listening, lastSeen: lastSeen, excluding: standIns)
    }

    /// The silence of the live gateways among those that heard the device lately.
    private struct RecentSilence {
        /// Whether any gateway heard it lately, alive or not.
        var anyRecent = false
        /// Where their silence starts: the device's last sighting, or the latest return of one of them.
        var start: EventTime?
        /// The shortest of their own silences about the device, on their own clocks, ms.
        var own: Int64?
        /// The same over the runs before their last breaks, where one held a whole silence
        /// (``GatewayTrack/silenceStart(after:since:threshold:)``): start, end and own silence.
        var preStart: EventTime?
        var preEnd: EventTime?
        var preOwn: Int64?
    }

    private func recentGatewaysSilence(_ track: Int, _ listening: Listening, lastSeen: EventTime, threshold: Int64) -> RecentSilence {
        guard let store = tracks[track].store else { return RecentSilence() }
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        return tracks[track].links.withUnsafeBufferPointer { links in
            var found = RecentSilence()
            for link in links where Int(link.store) == store && isRecent(link, lastSeen: lastSeen, stale: stale) {
                found.anyRecent = true
                let gateway = gateways[Int(link.gateway)]
                guard isAlive(Int(link.gateway), listening), let coverage = gateway.coverage,
                      let covered = gateway.coveredTo(at: listening.watermark) else { continue }
                found.start = max(found.start ?? lastSeen, coverage.since)
                // Its own silence about the device, on its own clock: what holds a device that a
                // gateway with a lagging clock still hears.
                let own = covered - max(link.filter.time, coverage.since)
                found.own = min(found.own ?? own, own)
                let run = gateway.silenceStart(after: lastSeen, since: coverage.since, threshold: threshold)
                found.preStart = max(found.preStart ?? lastSeen, run.from)
                if let until = run.until { found.preEnd = min(found.preEnd ?? until, until) }
                let preOwn = (run.until ?? covered) - max(link.filter.time, run.from)
                found.preOwn = min(found.preOwn ?? preOwn, preOwn)
            }
            return found
        }
    }

    /// The gateways that stand in for those that heard a restored device: its section's, or
    /// without a section its store's.
    private func standInGateways(_ track: Int) -> [Int] {
        if let section = tracks[track].section { return chain.sections[section].gateways }
        guard let store = tracks[track].store else { return [] }
        return chain.stores[store].gateways
    }

    private func standInSilence(_ standIns: [Int], _ listening: Listening, lastSeen: EventTime, reported: EventTime,
                                threshold: Int64) -> SilenceEvidence? {
        var from: EventTime?, pre: EventTime?, preEnd: EventTime?
        for gateway in standIns {
            let track = gateways[gateway]
            if isAlive(gateway, listening), let coverage = track.coverage {
                from = max(from ?? lastSeen, coverage.since)
                let run = track.silenceStart(after: lastSeen, since: coverage.since, threshold: threshold)
                pre = max(pre ?? lastSeen, run.from)
                if let until = run.until { preEnd = min(preEnd ?? until, until) }
            } else if listening.starting && track.lastBatch == nil && !track.reportedOffline {
                // Not heard from since the start yet — a later phase or a longer window than the
                // rest, a backlog behind theirs: awaited, as the store's silences are (`heardTo`
                // holds at the start), not taken for down (an `unknown` blip on every restart).
                from = max(from ?? lastSeen, listening.firstEvent)
                pre = max(pre ?? lastSeen, listening.firstEvent)
            }
        }
        guard let from else { return nil }
        if let pre, let preEnd, min(reported, preEnd) - pre > threshold {
            return .listening(quiet: min(reported, preEnd) - pre, since: pre)
        }
        return .listening(quiet: reported - from, since: from)
    }

    /// Every gateway that could have heard the device is down: how long the rest of the store
    /// has listened (gateways already down when it was last heard are not waited for).
    private func othersSilence(_ track: Int, _ listening: Listening, lastSeen: EventTime, excluding standIns: [Int]) -> SilenceEvidence {
        guard let store = tracks[track].store else { return .deaf(quiet: nil, since: nil) }
        let stale = Int64(tuning.staleAfterSeconds * 1000)
        var from = lastSeen, to = listening.watermark, others = 0
        for gateway in chain.stores[store].gateways
        where !hasRecentLink(track, gateway: gateway, lastSeen: lastSeen, stale: stale) && !standIns.contains(gateway) {
            let up = isAlive(gateway, listening)
            if !up && !gateways[gateway].wasReporting(at: lastSeen, silence: listening.silence) { continue }
            guard up, let coverage = gateways[gateway].coverage, let covered = gateways[gateway].coveredTo(at: listening.watermark) else {
                return .deaf(quiet: nil, since: nil)
            }
            from = max(from, coverage.since)
            to = min(to, covered)
            others += 1
        }
        return .deaf(quiet: others > 0 ? to - from : nil, since: from)
    }

    /// Whether `link`'s gateway heard the device lately: within `stale_after_s`, or two of its
    /// batch windows (two minutes before its window is known), of the device's last sighting in
    /// the store.
    @inline(__always)
    func isRecent(_ link: Link, lastSeen: EventTime, stale: Int64) -> Bool {
        let interval = gateways[Int(link.gateway)].interval
        return link.filter.time >= lastSeen - max(stale, 2 * (interval > 0 ? interval : GatewayTrack.maxInterval))
    }

    func hasRecentLink(_ track: Int, gateway: Int, lastSeen: EventTime, stale: Int64) -> Bool {
        tracks[track].links.contains { Int($0.gateway) == gateway && isRecent($0, lastSeen: lastSeen, stale: stale) }
    }
}
