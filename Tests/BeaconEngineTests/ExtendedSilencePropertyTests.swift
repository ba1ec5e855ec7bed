import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// The silence properties again, with what the first generator never produced: gateways that
/// die without a Last Will, Last Wills and returns (the edge buffering meanwhile), edge crashes
/// and restarts (new epoch), devices moving between sections and stores, an aggregator restart
/// from a snapshot, the live tick between arrivals, and (mode 1) a chain-wide broker outage after
/// which the edges reconnect in turn (backoff ≤ 10 s) and replay their buffers oldest first.
/// Written by a reviewer of the silence rules; it found the stale-backlog re-entry and the
/// crash-looping edge that kept devices inside.
@Suite("Engine: silence properties with failures, moves and restarts")
struct ExtendedSilencePropertyTests {
    let t0: Int64 = 1_790_000_000_000
    typealias Random = SilencePropertyTests.Random

    enum Fate { case normal, dies(Int64), lastWill(Int64, Int64), crash(Int64, Int64) }

    struct Batch {
        let gateway: Int
        let trueTime: Int64
        var arrival: Int64
        let sent: Int64
        let seq: UInt64
        let epoch: Int64
        let sightings: [(DeviceID, Int64, Int)]
    }
    enum Event { case batch(Batch), status(Int, Bool, Int64) }

    @Test("no exit while a batch still carrying the device is on its way; one enter and one exit per visit; every device exits", arguments: 0..<200)
    func properties(_ seed: Int) throws {
        try check(seed, mode: 0)
    }

    /// With a chain-wide broker outage on top (mode 1). Disabled until 2026-11-24 with 41 exits
    /// dated later than the bound and one exit and re-entry: this harness sent an edge's live batch
    /// before its own backlog (real edges send the backlog first; fixed here), an edge restarted
    /// during the outage restarted silences already long enough, and a gateway resumed from the
    /// snapshot but not heard yet held its store only from the first event (both fixed in the
    /// engine). Before the live arrival clock and the replay window, 127 seeds failed, most with
    /// false exits.
    @Test("the same with a chain-wide broker outage and a staggered reconnect", arguments: 0..<200)
    func propertiesThroughOutage(_ seed: Int) throws {
        try check(seed, mode: 1)
    }

    func check(_ seed: Int, mode: Int) throws {
        var random = Random(state: UInt64(seed) &* 104_729 &+ 17)
        let ids = ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"]
        let store = [0, 0, 0, 0, 1]
        let window = ids.map { _ in random.pick([1_000, 1_000, 1_000, 2_000, 5_000, 10_000, 20_000, 60_000] as [Int64]) }
        let offset = ids.map { _ in random.pick([0, 0, -1_000, 1_000, -2_000] as [Int64]) }
        let loss = ids.map { _ in random.pick([0, 0, 0, 0.05]) }
        let end = t0 + 20 * 60_000
        let devices = try (0..<3).map { try DeviceID("mac-AA:BB:CC:DD:EE:1\($0)") }
        let lossless = ids.indices.filter { loss[$0] == 0 }
        guard lossless.count >= 2 else { return }
        // Each device: anchor 1 until `move`, then anchor 2 (maybe another store) until `leave`.
        let enterAt = devices.map { _ in t0 + Int64(random.next() % 30) * 1000 }
        let move = devices.indices.map { enterAt[$0] + 60_000 + Int64(random.next() % 120) * 1000 }
        let leave = devices.indices.map { move[$0] + 30_000 + Int64(random.next() % 180) * 1000 }
        let anchor1 = devices.map { _ in random.pick(lossless) }
        let anchor2 = devices.map { _ in random.pick(lossless) }
        let anchors = Set(anchor1 + anchor2)
        // Fates, for gateways that are no anchor (an anchor may only crash briefly).
        var fate = ids.map { _ in Fate.normal }
        for g in ids.indices {
            let at = t0 + 40_000 + Int64(random.next() % 400) * 1000
            switch random.next() % 5 {
            case 0 where !anchors.contains(g): fate[g] = .dies(at)
            case 1 where !anchors.contains(g): fate[g] = .lastWill(at, at + Int64(20 + random.next() % 200) * 1000)
            case 2: fate[g] = .crash(at, at + (anchors.contains(g) ? Int64(3 + random.next() % 10) : Int64(3 + random.next() % 120)) * 1000)
            default: break
            }
        }
        let outage: (Int64, Int64)? = mode == 1 ? (t0 + 100_000 + Int64(random.next() % 200) * 1000, 0) : nil
        let outageEnd = outage.map { $0.0 + Int64(30 + random.next() % 300) * 1000 }
        let reconnect = ids.map { _ in (outageEnd ?? 0) + Int64(random.next() % 10_000) }
        let restartAt: Int64? = random.chance(0.5) ? t0 + 60_000 + Int64(random.next() % 400) * 1000 : nil

        func anchorAt(_ k: Int, _ t: Int64) -> Int? { t < enterAt[k] || t >= leave[k] ? nil : (t < move[k] ? anchor1[k] : anchor2[k]) }

        var events: [(Int64, Int, Event)] = []  // arrival, tie-break, event
        var carriers: [[Int64]] = devices.map { _ in [] }
        for g in ids.indices {
            var seq: UInt64 = 0, epoch = t0, start = t0
            var mine: [Batch] = []
            while start < end {
                let close = start + window[g]
                defer { start = close }
                var downFrom: Int64 = .max, downTo: Int64 = .max, buffered = false
                switch fate[g] {
                case .dies(let at): downFrom = at
                case .lastWill(let at, let back): (downFrom, downTo, buffered) = (at, back, true)
                case .crash(let at, let back): (downFrom, downTo) = (at, back)
                case .normal: break
                }
                if close >= downFrom && close < downTo && !buffered { continue }  // not sent at all
                if case .crash(_, let back) = fate[g], close >= back, epoch == t0 { epoch = back; seq = 0 }
                var sightings: [(DeviceID, Int64, Int)] = []
                for k in devices.indices {
                    guard let a = anchorAt(k, close) else { continue }
                    if a == g {
                        sightings += stride(from: Int64(0), to: window[g], by: 1000).map { (devices[k], start + offset[g] + $0 + 500, -60) }
                    } else if store[a] == store[g] && random.chance(0.3) {
                        sightings += (0..<4).map { (devices[k], start + offset[g] + window[g] / 2 + Int64($0) * 250, -60) }
                    }
                }
                var arrival = close
                if buffered && close >= downFrom && close < downTo { arrival = downTo + Int64(mine.count) }
                if let outage, let outageEnd, close >= outage.0 && close < outageEnd + (reconnect[g] - outageEnd) {
                    arrival = reconnect[g] + Int64(mine.count)  // replayed oldest first after reconnecting
                }
                if random.chance(loss[g]) { seq += 1; continue }
                // An edge sends its backlog in order, before its live batches.
                if let previous = mine.last { arrival = max(arrival, previous.arrival + 1) }
                mine.append(Batch(gateway: g, trueTime: close, arrival: arrival, sent: close + offset[g], seq: seq, epoch: epoch, sightings: sightings))
                seq += 1
            }
            for b in mine { events.append((b.arrival, g, .batch(b))) }
            if case .lastWill(let at, let back) = fate[g] {
                events.append((at + 15_000, g, .status(g, false, at + 15_000)))
                events.append((back - 1, g, .status(g, true, back - 1)))
            }
        }
        events.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        // Carriers are batches that arrive on time: a gateway down by its Last Will may replay a
        // buffer of old sightings later, but a down gateway cannot hold an exit (the deaf rule).
        for (i, e) in events.enumerated() {
            if case .batch(let b) = e.2, b.arrival == b.trueTime {
                for s in b.sightings { if let k = devices.firstIndex(of: s.0) { carriers[k].append(Int64(i) << 8 | Int64(store[b.gateway])) } }
            }
        }
        let rule = Tuning.Rule.allCases[seed % Tuning.Rule.allCases.count]
        let description = "mode \(mode) \(rule): " + ids.indices.map { g in "\(ids[g]) w\(window[g] / 1000)s off\(offset[g] / 1000)s loss\(loss[g]) \(fate[g])" }.joined(separator: ", ")
            + "; anchors \(anchor1.map { ids[$0] })→\(anchor2.map { ids[$0] }) move \(move.map { ($0 - t0) / 1000 }) leave \(leave.map { ($0 - t0) / 1000 })"
            + " outage \(outage.map { ($0.0 - t0) / 1000 } ?? -1)–\(outageEnd.map { ($0 - t0) / 1000 } ?? -1) restart \(restartAt.map { ($0 - t0) / 1000 } ?? -1)"
        var d = Driver(try Fixture.engine { $0.rule = rule })
        var restarted = restartAt == nil
        var lastArrival: Int64 = .min, deliveryLag: Int64 = 0, newestSent: Int64 = .min
        var connectedSince: Int64? = t0
        var failures = 0
        // The live service's arrival clock: wall time less the time it was disconnected.
        func arrivalClock(_ t: Int64) -> Int64 {
            guard let outage, let outageEnd else { return t }
            return t - min(max(0, t - outage.0), outageEnd - outage.0)
        }
        var reconnected = outage == nil
        for (index, e) in events.enumerated() {
            // The live tick, each second between arrivals.
            if lastArrival != .min {
                var tick = (lastArrival / 1000 + 1) * 1000
                while tick < e.0 {
                    let connected = outage.map { !(tick >= $0.0 && tick < outageEnd!) } ?? true
                    if !connected { connectedSince = nil } else {
                        let since = connectedSince ?? tick
                        connectedSince = since
                        if !reconnected, let outageEnd, tick >= outageEnd {
                            reconnected = true
                            d.engine.noteReconnect(arrival: arrivalClock(tick))
                        }
                        if tick - since >= 2000 && tick - lastArrival >= 2000 {
                            d.engine.advance(to: tick - deliveryLag, arrival: arrivalClock(tick), into: &d.outputs)
                        }
                    }
                    tick += 1000
                }
            }
            if !restarted, let restartAt, e.0 >= restartAt {
                restarted = true
                // What the retained state topics give back: each device's last state, outside
                // ones included.
                var last: [DeviceID: DeviceSnapshot] = [:]
                for case .state(let s) in d.outputs { last[s.device] = s }
                let states = last.values.sorted { $0.device.rawValue < $1.device.rawValue }.compactMap { s -> RestoredState? in
                    guard let store = s.store else { return nil }
                    return RestoredState(device: s.device, state: s.state, store: d.engine.chain.stores[store].major,
                                         section: s.section.map { d.engine.chain.sections[$0].minor }, since: s.since,
                                         storeSince: s.storeSince, sectionSince: s.sectionSince, lastSeen: s.lastSeen, sequence: s.sequence)
                }
                let progress = d.engine.gatewayProgress()
                var fresh = try Fixture.engine { $0.rule = rule }
                fresh.restore(states)
                fresh.resumeGateways(progress)
                d.engine = fresh
            }
            let before = d.outputs.count
            switch e.2 {
            case .batch(let b):
                if !reconnected, let outageEnd, e.0 >= outageEnd {
                    reconnected = true
                    d.engine.noteReconnect(arrival: arrivalClock(e.0))
                }
                d.batch(ids[b.gateway], sent: b.sent, b.sightings, seq: b.seq, epoch: b.epoch, arrival: arrivalClock(e.0))
                lastArrival = e.0
                if b.sent >= newestSent { deliveryLag = max(0, e.0 - b.sent) }
                newestSent = max(newestSent, b.sent)
            case .status(let g, let online, let time):
                d.engine.gatewayStatus(try GatewayID(ids[g]), online: online, at: time, into: &d.outputs)
            }
            for output in d.outputs[before...] {
                guard case .transition(let t) = output, t.kind == .exit, t.section == nil,
                      let k = devices.firstIndex(of: t.device) else { continue }
                if let later = carriers[k].first(where: { $0 >> 8 > index && Int($0 & 0xff) == t.store }), failures < 3 {
                    failures += 1
                    Issue.record("seed \(seed): \(devices[k]) exited store \(t.store) at arrival \(e.0 - t0) ms (event \(index)), before event \(later >> 8) that still carries it; \(description)")
                }
            }
        }
        let exits = d.transitionEvents.filter { $0.section == nil }
        // Truth: in a store at true time t.
        func truth(_ k: Int, _ t: Int64) -> Int? { anchorAt(k, t).map { store[$0] } }
        for (k, device) in devices.enumerated() {
            let mine = exits.filter { $0.device == device }
            // A visit the sightings show: the second store only if some batch carried the device
            // there (a stay shorter than its gateway's window may leave no sighting at all).
            let heardInSecond = events.contains { e in
                guard case .batch(let b) = e.2 else { return false }
                return store[b.gateway] == store[anchor2[k]] && b.trueTime > move[k] && b.sightings.contains { $0.0 == device }
            }
            var expected: [String] = ["enter \(store[anchor1[k]])"]
            if store[anchor2[k]] != store[anchor1[k]] && heardInSecond { expected += ["exit \(store[anchor1[k]])", "enter \(store[anchor2[k]])"] }
            expected.append("exit \(store[anchor2[k]] != store[anchor1[k]] && !heardInSecond ? store[anchor1[k]] : store[anchor2[k]])")
            let got = mine.map { "\($0.kind) \($0.store)" }
            if got != expected {
                Issue.record("seed \(seed) EVENTS: \(device) \(mine.map { "\($0.kind) \($0.store) @\(($0.time - t0) / 1000)" }) expected \(expected); \(description)")
            }
            // (No check of exit times against the generator's truth: a window's sightings follow
            // where the device is at the window's close, so the data can show a departure a
            // window before the truth does. The carrier check above is the exact one.)
        }
        for (k, device) in devices.enumerated() {
            let state = d.engine.current(device)?.state ?? .outside
            if state != .outside {
                Issue.record("seed \(seed): \(device) is \(state) at the end (left at \((leave[k] - t0) / 1000) s); \(description)")
            }
            let last = exits.last { $0.device == device && $0.kind == .exit }
            let slowest = window.max()!
            if let last, last.time > leave[k] + 30_000 + 3 * slowest + 12_000 + 60_000 {
                Issue.record("seed \(seed): \(device) exited \((last.time - leave[k]) / 1000) s after leaving; \(description)")
            }
        }
    }
}
