import BeaconEngine

extension MessageProcessor {
    /// Moves the arrival clock on to `now` (it does not run while disconnected) and returns it.
    mutating func arrival(at now: Int64) -> Int64 {
        var clock = arrivalClock ?? now
        if let sample = clockSample { clock += min(Self.maxClockStep, max(0, now - sample)) }
        clockSample = now
        arrivalClock = clock
        return clock
    }

    /// The live service's clock tick: lets event time pass while no batch arrives, so that
    /// gateways that fell silent without a Last Will are noticed (their devices become `unknown`)
    /// even when the whole chain is quiet.
    ///
    /// It holds back while batches flow (they move event time themselves, and a tick to the wall
    /// clock would run ahead of a backlog still queued — after a restart, a reconnection, or under
    /// load), while the sightings connection is down (the aggregator's own blindness says nothing
    /// about the gateways), and for ``tickHold`` after it comes back (a resumed session's queue
    /// arrives first). It moves to the clock minus the delivery lag last seen, not beyond.
    public mutating func tick(now: Int64, connected: Bool, into out: inout [Outbound]) {
        guard connected else {
            connectedSince = nil
            clockSample = nil
            wasDisconnected = true
            return
        }
        let clock = arrival(at: now)
        if wasDisconnected {
            // Back up after being down: gateways may have backlogs queued behind the others', and
            // may reconnect later than they do. (Not at start-up: that is no reconnection.)
            wasDisconnected = false
            engine.noteReconnect(arrival: clock)
        }
        let since = connectedSince ?? now
        connectedSince = since
        guard now - since >= Self.tickHold, lastArrival.map({ now - $0 >= Self.tickHold }) ?? true else { return }
        var outputs: [EngineOutput] = []
        engine.advance(to: now - deliveryLag, arrival: clock, into: &outputs)
        publish(outputs, into: &out)
    }

    /// Lets time pass after a recording as if the gateways alive at its end went on sending
    /// heartbeats (see ``AggregationEngine/drain(to:into:)``).
    public mutating func drain(to time: Int64, into out: inout [Outbound]) {
        var outputs: [EngineOutput] = []
        engine.drain(to: time, into: &outputs)
        publish(outputs, into: &out)
    }

    /// Lets time pass with no traffic (the service's clock, or the end of a replay).
    public mutating func advance(to time: Int64, into out: inout [Outbound]) {
        var outputs: [EngineOutput] = []
        engine.advance(to: time, into: &outputs)
        publish(outputs, into: &out)
    }
}
