import Foundation

extension AggregationEngine {
    /// The device leaves its store at `time`: its section's exit, the store's, and its state.
    mutating func exitStore(_ track: Int, at time: EventTime, into out: inout [EngineOutput]) {
        guard let store = tracks[track].store else { return }
        if let section = tracks[track].section {
            occupancy.add(-1, section: section, at: time)
            if chain.sections[section].notifyOnExit {
                emitTransition(track, .exit, section: section, other: nil, at: time, dwell: time - tracks[track].sectionSince, into: &out)
            }
        }
        occupancy.add(-1, store: store, at: time)
        tracks[track].state = .outside
        tracks[track].stateSince = time
        tracks[track].proximity = .unknown
        tracks[track].accuracy = nil
        if chain.stores[store].notifyOnExit {
            emitTransition(track, .exit, section: nil, other: nil, at: time, dwell: time - tracks[track].storeSince, into: &out)
        }
        // Drop the store's links: they describe a visit that is over.
        tracks[track].links.removeAll { Int($0.store) == store }
        sectionRule.stopWatching(track: track)
        emitState(track, at: time, into: &out)
    }

    /// How long a silence means the device has left, ms.
    ///
    /// `timeout`: the fixed exit timeout. `adaptive`: if the store's gateways were hearing the device
    /// at λ sightings/s, a silence of T seconds while it is still inside has probability e^(−λT)
    /// (Poisson reception); exit when that falls below `exit_false_probability`, i.e.
    /// T = ln(1/p)/λ, clamped to [`exit_min_s`, `exit_timeout_s`]. Without enough history to know λ
    /// the fixed timeout applies.
    func exitThreshold(_ track: Int) -> Int64 {
        let timeout = tuning.exitTimeoutSeconds
        guard tuning.exitRule == .adaptive, let rate = tracks[track].rate.perSecond, rate > 0 else {
            return Int64(timeout * 1000)
        }
        let seconds = log(1 / tuning.exitFalseProbability) / rate
        return Int64(min(timeout, max(tuning.exitMinSeconds, seconds)) * 1000)
    }

    /// When the silence counted from `since` reached its threshold (or, with no `since`, when one
    /// `overdue` ms past it at `watermark` did): the exit's event time. Live, that is within a
    /// sweep of the watermark; after a backlog replayed in a second (a broker outage) it is when
    /// the recorded silence was long enough, not when the replay got there. Never before the
    /// device's last sighting or its current state's or section's start (which can lie a little
    /// past the watermark), so a device's events stay in order.
    func exitTime(_ track: Int, at watermark: EventTime, since: EventTime?, threshold: Int64, overdue: Int64) -> EventTime {
        let reached = since.map { $0 + threshold + 1 } ?? watermark - overdue + 1
        let lastSeen = tracks[track].lastSeen.map { $0 + 1 } ?? watermark
        return max(min(reached, watermark), lastSeen, tracks[track].stateSince, tracks[track].sectionSince)
    }
}
