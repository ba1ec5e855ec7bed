public import BeaconCore
import BeaconEngine
public import BeaconWire

extension SharedStateArbiter {
    /// What a starting instance restores from its snapshot file and the retained device states
    /// (the second table of ``SharedStateArbiter``).
    ///
    /// - Only the stores it owns compete (with several instances, another's newer state of a
    ///   device heard in both stores must not hide this one's).
    /// - Per device the newest wins (``newest(_:)``) — except that an `outside` from the file over
    ///   an `inside` or `unknown` that is still this instance's retained state means the exit was
    ///   decided but never reached the broker (a `kill -9`, a SIGTERM with the broker away): the
    ///   retained state is restored, with the file's exit time in `exits`, so that the exit is
    ///   decided again — same `seq`, its own time and dwell — before anything else, rather than
    ///   the topic left saying `inside` for ever.
    /// - An `inside` or `unknown` from the file newer than the topic's state, when the topic holds
    ///   none or an older one of this instance's, is a decision that never reached the broker
    ///   either (a re-entry, a section change): its device is in `republish`, to publish its state
    ///   again at restore. (Its events are not sent again.) Over another instance's state, only
    ///   an `inside` newer than it is; the rest is left to the live rules (``note(_:mine:)``).
    /// - With `now` (the live clock), an `outside` last heard longer ago than the engine remembers
    ///   a device is left out (a snapshot outlives the retained `outside`). With `--event-time`
    ///   there is no clock to judge by; the engine forgets it.
    ///
    /// `complete` says whether every retained state arrived (the restore's marker came back in
    /// time, none dropped); when not, a missing topic proves nothing, and only states seen on the
    /// topic are compared. A topic is also empty once a retained `outside` has expired
    /// (`outsideExpiry`, ms): a file state last heard longer ago than that is not published again.
    public static func restorable(fromFile: [DeviceState], retained: [DeviceState], stores: StoreSelection, now: Int64?,
                                  complete: Bool = true, outsideExpiry: Int64 = 3_600_000) -> RestorePlan {
        let own = { (s: DeviceState) in s.region.map { stores.contains($0.store) } ?? false }
        // One retained topic per device: whoever wrote it last.
        var topics: [String: DeviceState] = [:]
        for s in retained { topics[s.device.rawValue] = s }
        var exits: [String: Int64] = [:]
        var republish: Set<String> = []
        let states: [DeviceState] = newest(fromFile.filter(own), retained.filter(own)).compactMap { s in
            guard s.presence == .outside else {
                let topic = topics[s.device.rawValue]
                // (The file's `last_seen` is always later: a state is not published again per sighting.)
                if let topic {
                    let same = topic.sequence == s.sequence && topic.presence == s.presence
                    // Over another instance's older state only an `inside`, as live: its own
                    // `unknown` would be withheld there.
                    if !same && order(topic) < order(s) && (own(topic) || s.presence == .inside) { republish.insert(s.device.rawValue) }
                } else if complete, now.map({ s.lastSeen >= $0 - outsideExpiry }) ?? true {
                    republish.insert(s.device.rawValue)
                }
                return s
            }
            if var topic = topics[s.device.rawValue], own(topic), topic.presence != .outside {
                exits[s.device.rawValue] = s.since
                topic.lastSeen = max(topic.lastSeen, s.lastSeen)  // heard until then, as the file says
                return topic
            }
            return now.map { s.lastSeen >= $0 - AggregationEngine.forgetAfter.milliseconds } ?? true ? s : nil
        }
        return RestorePlan(states: states, exits: exits, republish: republish)
    }

    /// Which of two states of a device is newer (see ``newest(_:)``).
    static func order(_ s: DeviceState) -> (Int64, UInt64, Int64) { (s.since, s.sequence, s.lastSeen) }

    /// Per device, the newest state: the spell begun last (`since`), then the highest sequence
    /// number, then the one heard last. The sequence alone is not enough: it starts again at 1
    /// for a device forgotten and heard again, so a stale snapshot's `inside` could beat the
    /// retained `outside` decided after it (a failover between instances) and invent an exit.
    /// Nor is the time last heard: within one spell the file is written per sighting and a state
    /// is published per decision, at the watermark, behind the sightings — a section change on
    /// the topic, last heard before the snapshot's older state, would be decided again under the
    /// same `seq` with whatever the restarted run then sees. Two states of one spell keep the
    /// later time last heard.
    static func newest(_ lists: [DeviceState]...) -> [DeviceState] {
        var best: [String: DeviceState] = [:]
        for list in lists {
            for state in list {
                guard let current = best[state.device.rawValue] else {
                    best[state.device.rawValue] = state
                    continue
                }
                var (newer, older) = order(current) <= order(state) ? (state, current) : (current, state)
                if newer.since == older.since && newer.presence == older.presence {
                    newer.lastSeen = max(newer.lastSeen, older.lastSeen)
                }
                best[state.device.rawValue] = newer
            }
        }
        return best.keys.sorted().map { best[$0]! }
    }
}
