import Foundation

extension StorePresence {
    /// How long a silence means the device on `track` has left.
    ///
    /// `timeout`: the fixed exit timeout. `adaptive`: if the store's gateways were hearing the device
    /// at λ sightings/s, a silence of T seconds while it is still inside has probability e^(−λT)
    /// (Poisson reception); exit when that falls below `exit_false_probability`, i.e.
    /// T = ln(1/p)/λ, clamped to [`exit_min_s`, `exit_timeout_s`]. Without enough history to know λ
    /// the fixed timeout applies.
    func exitThreshold(_ track: Int, tuning: Tuning) -> EventDuration {
        guard tuning.exitRule == .adaptive, let rate = devices[track].rate.perSecond, rate > 0 else { return tuning.exitTimeout }
        let seconds = log(1 / tuning.exitFalseProbability) / rate
        return .seconds(min(tuning.exitTimeoutSeconds, max(tuning.exitMinSeconds, seconds)))
    }

    /// When the silence counted from `since` reached its `threshold` (or, with no `since`, when one
    /// `overdue` past it at `watermark` did): the exit's event time. Live, that is within a
    /// sweep of the watermark; after a backlog replayed in a second (a broker outage) it is when
    /// the recorded silence was long enough, not when the replay got there. Never before the
    /// device's last sighting, nor before its current state or section began.
    func exitTime(_ track: Int, at watermark: EventTime, since: EventTime?, threshold: EventDuration, overdue: EventDuration) -> EventTime {
        let step = EventDuration(milliseconds: 1)
        let reached = since.map { $0 + threshold + step } ?? watermark - overdue + step
        let device = devices[track]
        let earliest = max(min(reached, watermark), device.lastSeen + step)
        return device.earliestEvent.map { max(earliest, $0) } ?? earliest
    }
}
