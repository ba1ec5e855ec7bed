/// The engine's sense of time: event time as the data tells it, the watermark time-driven
/// decisions have reached, and, live, the service's arrival clock.
struct EngineClock: Sendable {
    /// Latest event time seen (sightings and batch `sent`); nil before any.
    var latest: EventTime?
    /// The first event time seen: this process's start, in event time.
    var first: EventTime?
    /// Time-driven decisions have been made up to here: ``latest`` less `lateness_s`.
    var watermark: EventTime?
    /// The watermark at the last sweep.
    var lastSweep: EventTime?
    /// The live service's arrival clock (wall time while connected to the broker), ms; nil in a
    /// replay, where only event time exists.
    var arrival: ArrivalClock?
    /// The arrival clock when the sightings connection last came back up: a gateway that has not
    /// delivered since may have a backlog queued behind the others'.
    var reconnectedAt: Int64?

    /// The live service's clock: now, and its first reading (this process's start).
    struct ArrivalClock: Sendable {
        var now: Int64
        var first: Int64
    }

    /// Moves the arrival clock to `time` (never back).
    mutating func noteArrival(_ time: Int64) {
        if var clock = arrival {
            clock.now = max(clock.now, time)
            arrival = clock
        } else {
            arrival = ArrivalClock(now: time, first: time)
        }
    }
}
