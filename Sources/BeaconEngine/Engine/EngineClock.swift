/// The engine's sense of time: event time as the data tells it, the watermark time-driven
/// decisions have reached, and, live, the service's arrival clock.
struct EngineClock: Sendable {
    /// The live service's clock: now, and its first reading (this process's start).
    struct ArrivalClock: Sendable {
        var now: Int64
        var first: Int64
    }

    /// Latest event time seen (sightings and batch `sent`); nil before any.
    private(set) var latest: EventTime?
    /// The first event time seen: this process's start, in event time.
    private(set) var first: EventTime?
    /// Time-driven decisions have been made up to here: ``latest`` less `lateness_s`.
    private(set) var watermark: EventTime?
    /// The watermark at the last sweep.
    private(set) var lastSweep: EventTime?
    /// The live service's arrival clock (wall time while connected to the broker), ms; nil in a
    /// replay, where only event time exists.
    private(set) var arrival: ArrivalClock?
    /// The arrival clock when the sightings connection last came back up: a gateway that has not
    /// delivered since may have a backlog queued behind the others'.
    private(set) var reconnectedAt: Int64?

    /// How often (event time) time-driven decisions are swept.
    static let sweepInterval = EventDuration(milliseconds: 500)
    /// How long after the live service's connection comes back every gateway known before is
    /// awaited (arrival clock): a backlog of minutes replays in seconds, and edges reconnect
    /// within 10 s of the broker's return (their back-off), more in a connection storm.
    static let replayWindow = EventDuration(milliseconds: 60_000)

    /// Moves the arrival clock to `time` (never back).
    mutating func noteArrival(_ time: Int64) {
        if var clock = arrival {
            clock.now = max(clock.now, time)
            arrival = clock
        } else {
            arrival = ArrivalClock(now: time, first: time)
        }
    }

    /// The live service's sightings connection came back up at `arrival`.
    mutating func noteReconnect(arrival: Int64) {
        reconnectedAt = arrival
        noteArrival(arrival)
    }

    /// Event time moved to `time` (if later than anything seen): the watermark follows, `lateness`
    /// behind. Returns the watermark when it has moved on by ``sweepInterval`` since the last
    /// sweep: a sweep is due there.
    mutating func advance(to time: EventTime, lateness: EventDuration) -> EventTime? {
        if let latest, time <= latest { return nil }
        if first == nil { first = time }
        latest = time
        let candidate = time - lateness
        if watermark.map({ candidate > $0 }) ?? true { watermark = candidate }
        guard let current = watermark else { return nil }
        let last = lastSweep ?? current
        lastSweep = last
        guard current - last >= Self.sweepInterval else { return nil }
        lastSweep = current
        return current
    }

    /// Who is listening at `watermark` (`silence`: `gateway_silence_s`). Live, a start is
    /// measured on the arrival clock (a backlog replays minutes of event time in seconds); in a
    /// replay, on event time.
    func listening(at watermark: EventTime, silence: EventDuration) -> Listening {
        let firstEvent = first ?? watermark
        let phase: Listening.Phase
        if let arrival {
            if arrival.now - arrival.first <= Self.replayWindow.milliseconds {
                phase = .starting
            } else if let reconnectedAt, arrival.now - reconnectedAt <= Self.replayWindow.milliseconds {
                phase = .reconnected
            } else {
                phase = .steady
            }
        } else {
            phase = watermark - firstEvent <= Coverage.maxInterval ? .starting : .steady
        }
        return Listening(
            watermark: watermark, arrival: arrival?.now, silence: silence, firstEvent: firstEvent, phase: phase,
            reconnectedAt: reconnectedAt)
    }
}
