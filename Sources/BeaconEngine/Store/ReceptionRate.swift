import Foundation

/// How often the gateways of the device's store hear it: an exponentially decayed count of its
/// sightings there, which the adaptive exit turns into the silence a departure takes.
struct ReceptionRate: Sendable {
    /// Decayed count of sightings (time constant ``tau``).
    private(set) var count = 0.0
    /// The last update and the first sighting counted; nil before any.
    private(set) var latest: (time: EventTime, since: EventTime)?

    /// Time constant of the decay, seconds.
    static let tau = 20.0

    /// Sightings per second as of the last sighting — not decayed by the silence being judged.
    /// Nil until there is enough history (5 sightings over 5 s) to say: a decayed count `c` with
    /// time constant τ over a history of `D` seconds has expectation `λ·τ·(1 − e^(−D/τ))`.
    var perSecond: Double? {
        guard let latest else { return nil }
        let history = (latest.time - latest.since).seconds
        guard history >= 5, count >= 5 else { return nil }
        return count / (Self.tau * (1 - exp(-history / Self.tau)))
    }

    /// Books one sighting at `time`.
    mutating func count(at time: EventTime) {
        guard let last = latest else {
            latest = (time, time)
            count = 1
            return
        }
        let dt = max(.zero, time - last.time).seconds
        count = count * exp(-dt / Self.tau) + 1
        if time > last.time { latest = (time, last.since) }
    }
}
