import BeaconCore
import TestSupport
@testable import BeaconEngine

/// Plays a run's events into an engine in the order they arrive, as the aggregator meets them.
/// A live player also does what the live service does between arrivals: its tick each second,
/// its arrival clock (which stops while the broker is out of reach), its reconnect after an
/// outage, and a restart from the states the retained topics give back.
struct StreamPlayer {
    /// What a live player knows of the run around the events.
    struct Live {
        let rule: Tuning.Rule
        let outage: Range<Int64>?
        let restartAt: Int64?
    }

    private(set) var driver: Driver
    private let live: Live?
    private var restarted: Bool
    private var reconnected: Bool
    private var lastArrival: Int64 = .min
    /// How far the newest batch's arrival lagged its `sent`: the tick advances the engine's clock
    /// that much behind the wall clock.
    private var deliveryLag: Int64 = 0
    private var newestSent: Int64 = .min
    private var connectedSince: Int64? = SilenceRun.t0

    /// A player that only delivers the events (no tick, no arrival clock), or a `live` one.
    init(_ driver: Driver, live: Live? = nil) {
        self.driver = driver
        self.live = live
        restarted = live?.restartAt == nil
        reconnected = live?.outage == nil
    }

    /// Plays `events`, calling `transition` for each transition an event itself brings about,
    /// with the event's index.
    mutating func play(_ events: [StreamEvent], transition: (Int, StreamEvent, Transition) -> Void) throws {
        for (index, event) in events.enumerated() {
            if live != nil && lastArrival != .min { tick(until: event.arrival) }
            if !restarted, let restartAt = live?.restartAt, event.arrival >= restartAt {
                restarted = true
                try restartFromRetainedStates()
            }
            let before = driver.outputs.count
            switch event {
            case .batch(let b):
                noteReconnect(at: event.arrival)
                driver.batch(SilenceRun.ids[b.gateway], sent: b.sent, b.sightings, seq: b.seq, epoch: b.epoch,
                             arrival: live == nil ? nil : arrivalClock(event.arrival))
                lastArrival = event.arrival
                if b.sent >= newestSent { deliveryLag = max(0, event.arrival - b.sent) }
                newestSent = max(newestSent, b.sent)
            case .status(let g, let online, _):
                driver.engine.gatewayStatus(try GatewayID(SilenceRun.ids[g]), online: online)
            }
            for case .transition(let t) in driver.outputs[before...] { transition(index, event, t) }
        }
    }

    /// The live tick, each second from the last arrival until `arrival`: while connected for 2 s
    /// and nothing has arrived for 2 s, the engine's clock moves on.
    private mutating func tick(until arrival: Int64) {
        var tick = (lastArrival / 1000 + 1) * 1000
        while tick < arrival {
            if let outage = live?.outage, outage.contains(tick) {
                connectedSince = nil
            } else {
                let since = connectedSince ?? tick
                connectedSince = since
                noteReconnect(at: tick)
                if tick - since >= 2000 && tick - lastArrival >= 2000 {
                    driver.engine.advance(to: tick - deliveryLag, arrival: arrivalClock(tick), into: &driver.outputs)
                }
            }
            tick += 1000
        }
    }

    /// Tells the engine the broker is reachable again, the first time anything happens after the outage.
    private mutating func noteReconnect(at time: Int64) {
        guard !reconnected, let outage = live?.outage, time >= outage.upperBound else { return }
        reconnected = true
        driver.engine.noteReconnect(arrival: arrivalClock(time))
    }

    /// The live service's arrival clock: wall time less the time it was disconnected.
    private func arrivalClock(_ t: Int64) -> Int64 {
        guard let outage = live?.outage else { return t }
        return t - min(max(0, t - outage.lowerBound), outage.upperBound - outage.lowerBound)
    }

    /// A new engine, restored from each device's last state (outside ones included) and resumed
    /// from the old one's gateway progress, as a restarted aggregator starts.
    private mutating func restartFromRetainedStates() throws {
        guard let live else { return }
        var last: [DeviceID: DeviceSnapshot] = [:]
        for case .state(let s) in driver.outputs { last[s.device] = s }
        let chain = driver.engine.chain
        let states = last.values.sorted { $0.device.rawValue < $1.device.rawValue }.compactMap { s -> RestoredState? in
            guard let store = s.store else { return nil }
            return RestoredState(device: s.device, state: s.state, store: chain.stores[store].major,
                                 section: s.section.map { chain.sections[$0].minor }, since: s.since,
                                 storeSince: s.storeSince, sectionSince: s.sectionSince, lastSeen: s.lastSeen, sequence: s.sequence)
        }
        let progress = driver.engine.gatewayProgress()
        var fresh = try Fixture.engine { $0.rule = live.rule }
        fresh.restore(states)
        fresh.resumeGateways(progress)
        driver.engine = fresh
    }
}
