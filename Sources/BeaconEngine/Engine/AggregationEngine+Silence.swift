// A device's silence at one sweep, read from its links and the gateways' coverage.
//
// A silence is evidence only while someone listens. It counts from the device's last sighting
// in its store, or from the latest return (or hole in the batches) of a live gateway that heard
// it lately, up to the earliest last batch of the store's live gateways (`heardTo`,
// ``GatewayBook/heardTo(_:_:forDecisions:)``) — not up to the watermark, which a late backlog,
// the service's clock or another store's gateway may have moved past what they have reported. A
// gateway heard the device "lately" if within `stale_after_s`, or two of its batch windows, of
// its last sighting.
extension AggregationEngine {
    /// The silence of the device on `track` (`device`, in a store) at the sweep `listening`
    /// describes, with the store's gateways heard to `heardTo` and its exit `threshold`. Runs for
    /// every device in a store at every sweep: it reads the owners in place.
    func silenceEvidence(_ track: Int, _ device: DevicePresence, _ listening: Listening, heardTo: EventTime?,
                         threshold: EventDuration) -> SilenceEvidence {
        let lastSeen = device.lastSeenInStore ?? listening.watermark
        let reported = heardTo.map { min(listening.watermark, $0) } ?? listening.watermark
        let recent = recentGateways(track, store: device.presence.store, listening, lastSeen: lastSeen, threshold: threshold)
        if let live = recent.live {
            // A silence long enough before a gateway's break (its edge restarted later, during an
            // outage): decided by that, dated within it.
            if let pre = live.beforeBreak, let end = pre.end {
                let storeQuiet = min(reported, end) - pre.start
                if min(storeQuiet, pre.own) > threshold {
                    return .listening(quiet: min(storeQuiet, pre.own), since: storeQuiet <= pre.own ? pre.start : nil)
                }
            }
            let storeQuiet = reported - live.start
            return .listening(quiet: min(storeQuiet, live.own), since: storeQuiet <= live.own ? live.start : nil)
        }
        // Restored after a restart, a device has no links yet: its section's gateways (or, with
        // no section, its store's) stand in for the ones that heard it.
        let standIns = recent.any ? [] : standInGateways(device.presence)
        if let evidence = standInSilence(standIns, listening, lastSeen: lastSeen, reported: reported, threshold: threshold) {
            return evidence
        }
        return othersSilence(track, store: device.presence.store, listening, lastSeen: lastSeen, excluding: standIns)
    }

    /// The silence of the live gateways among those that heard the device lately.
    private struct RecentSilence {
        /// Their silence.
        struct Live {
            /// Where it starts: the device's last sighting, or the latest return of one of them.
            var start: EventTime
            /// The shortest of their own silences about the device, on their own clocks.
            var own: EventDuration
            /// The same over the runs before their last breaks, where one held a whole silence
            /// (``Coverage/silenceStart(after:since:threshold:)``).
            var beforeBreak: (start: EventTime, end: EventTime?, own: EventDuration)?
        }

        /// Whether any gateway heard it lately, alive or not.
        var any = false
        /// The live ones' silence; nil when none of them is alive.
        var live: Live?
    }

    private func recentGateways(_ track: Int, store: Int?, _ listening: Listening, lastSeen: EventTime, threshold: EventDuration) -> RecentSilence {
        guard let store else { return RecentSilence() }
        return links.links[track].withUnsafeBufferPointer { deviceLinks in
            var found = RecentSilence()
            for link in deviceLinks where Int(link.store) == store
            && gateways.heardRecently(Int(link.gateway), at: link.filter.time, lastSeen: lastSeen, stale: links.stale) {
                found.any = true
                let coverage = gateways[Int(link.gateway)].coverage
                guard gateways.isAlive(Int(link.gateway), listening), let run = coverage.run,
                      let covered = coverage.coveredTo(at: listening.watermark) else { continue }
                // Its own silence about the device, on its own clock: what holds a device that a
                // gateway with a lagging clock still hears.
                let own = covered - max(link.filter.time, run.since)
                let pre = coverage.silenceStart(after: lastSeen, since: run.since, threshold: threshold)
                let preOwn = (pre.until ?? covered) - max(link.filter.time, pre.from)
                var live = found.live ?? RecentSilence.Live(start: lastSeen, own: own, beforeBreak: nil)
                live.start = max(live.start, run.since)
                live.own = min(live.own, own)
                var before = live.beforeBreak ?? (lastSeen, nil, preOwn)
                before.start = max(before.start, pre.from)
                if let until = pre.until { before.end = min(before.end ?? until, until) }
                before.own = min(before.own, preOwn)
                live.beforeBreak = before
                found.live = live
            }
            return found
        }
    }

    /// The gateways that stand in for those that heard a restored device: its section's, or
    /// without a section its store's.
    private func standInGateways(_ presence: Presence) -> [Int] {
        if let section = presence.section { return chain.sections[section].gateways }
        guard let store = presence.store else { return [] }
        return chain.stores[store].gateways
    }

    private func standInSilence(_ standIns: [Int], _ listening: Listening, lastSeen: EventTime, reported: EventTime,
                                threshold: EventDuration) -> SilenceEvidence? {
        var from: EventTime?, pre: EventTime?, preEnd: EventTime?
        for gateway in standIns {
            let stream = gateways[gateway]
            if gateways.isAlive(gateway, listening), let run = stream.coverage.run {
                from = max(from ?? lastSeen, run.since)
                let silence = stream.coverage.silenceStart(after: lastSeen, since: run.since, threshold: threshold)
                pre = max(pre ?? lastSeen, silence.from)
                if let until = silence.until { preEnd = min(preEnd ?? until, until) }
            } else if listening.starting && stream.coverage.lastBatch == nil && stream.announcement == .reporting {
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
    private func othersSilence(_ track: Int, store: Int?, _ listening: Listening, lastSeen: EventTime, excluding standIns: [Int]) -> SilenceEvidence {
        guard let store else { return .deaf(quiet: nil, since: nil) }
        var from = lastSeen, to = listening.watermark, others = 0
        for gateway in chain.stores[store].gateways where !hasRecentLink(track, gateway: gateway, lastSeen: lastSeen) && !standIns.contains(gateway) {
            let up = gateways.isAlive(gateway, listening)
            if !up && !gateways[gateway].wasReporting(at: lastSeen, silence: listening.silence) { continue }
            let coverage = gateways[gateway].coverage
            guard up, let run = coverage.run, let covered = coverage.coveredTo(at: listening.watermark) else {
                return .deaf(quiet: nil, since: nil)
            }
            from = max(from, run.since)
            to = min(to, covered)
            others += 1
        }
        return .deaf(quiet: others > 0 ? to - from : nil, since: from)
    }

    private func hasRecentLink(_ track: Int, gateway: Int, lastSeen: EventTime) -> Bool {
        links.links[track].contains {
            Int($0.gateway) == gateway && gateways.heardRecently(gateway, at: $0.filter.time, lastSeen: lastSeen, stale: links.stale)
        }
    }
}
