/// Who is listening at one sweep: the watermark, the arrival clock and the phase that decides
/// which gateways a silence waits for. Built once per sweep from the engine's clock
/// (``EngineClock/listening(at:silence:)``).
struct Listening {
    /// Where the sweep is in event time.
    let watermark: EventTime
    /// The live service's arrival clock, ms; nil in a replay.
    let arrival: Int64?
    /// `gateway_silence_s`.
    let silence: EventDuration
    /// The first event time of this process.
    let firstEvent: EventTime
    /// Which gateways are awaited.
    let phase: Phase
    /// When the live service's sightings connection last came back up (arrival clock); nil
    /// before any reconnection and in a replay.
    let reconnectedAt: Int64?

    /// Where the process stands after a start or a reconnection.
    enum Phase {
        /// Running: gateways are alive by their own batches.
        case steady
        /// Within a minute of the start (live, on the arrival clock; in a replay, within the longest
        /// batch window of event time): a gateway not heard from yet may have a long window still
        /// filling, or a backlog behind the others'.
        case starting
        /// Live, within a minute of the sightings connection coming back (a broker outage): every
        /// gateway alive when it went is awaited — its backlog may be queued behind the others',
        /// and it may reconnect later than they do (the edges' back-off).
        case reconnected
    }

    /// Whether gateways that are not online by their batches are still awaited (live only: a
    /// replay has no backlogs to wait for).
    var awaitsBacklogs: Bool { arrival != nil && phase != .steady }

    /// Within the start's window.
    var starting: Bool { phase == .starting }
}
