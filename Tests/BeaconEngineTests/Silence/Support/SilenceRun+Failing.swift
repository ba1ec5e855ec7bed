import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

extension SilenceRun {
    /// Gateways that fail as real ones do: they die without a Last Will, go down with one and
    /// come back (the edge buffering meanwhile), crash and restart (a new epoch). Each of three
    /// devices moves once, between sections or stores; the aggregator may restart from a
    /// snapshot; with `brokerOutage`, the broker is out of reach for the whole chain for a while,
    /// after which the edges reconnect in turn (backoff ≤ 10 s) and replay their buffers oldest
    /// first. Nil when fewer than two gateways lose nothing.
    static func failing(seed: Int, brokerOutage: Bool) throws -> SilenceRun? {
        var random = SplitMix64(state: UInt64(seed) &* 104_729 &+ 17)
        let window = ids.map { _ in random.pick([1_000, 1_000, 1_000, 2_000, 5_000, 10_000, 20_000, 60_000] as [Int64]) }
        let offset = ids.map { _ in random.pick([0, 0, -1_000, 1_000, -2_000] as [Int64]) }
        let loss = ids.map { _ in random.pick([0, 0, 0, 0.05]) }
        let devices = try (0..<3).map { try DeviceID("mac-AA:BB:CC:DD:EE:1\($0)") }
        let lossless = ids.indices.filter { loss[$0] == 0 }
        guard lossless.count >= 2 else { return nil }
        // Each device: anchor 1 until `move`, then anchor 2 (maybe another store) until `leave`.
        let enter = devices.map { _ in t0 + Int64(random.next() % 30) * 1000 }
        let move = devices.indices.map { enter[$0] + 60_000 + Int64(random.next() % 120) * 1000 }
        let leave = devices.indices.map { move[$0] + 30_000 + Int64(random.next() % 180) * 1000 }
        let first = devices.map { _ in random.pick(lossless) }
        let second = devices.map { _ in random.pick(lossless) }
        let fates = drawFates(anchors: Set(first + second), &random)
        var run = SilenceRun(
            seed: seed,
            gateways: ids.indices.map {
                StreamGateway(id: ids[$0], store: stores[$0], window: window[$0], offset: offset[$0], loss: loss[$0], fate: fates[$0])
            },
            plans: devices.indices.map {
                DevicePlan(device: devices[$0], enter: enter[$0], move: move[$0], leave: leave[$0], first: first[$0], second: second[$0])
            })
        let outageStart: Int64? = brokerOutage ? t0 + 100_000 + Int64(random.next() % 200) * 1000 : nil
        let outageEnd = outageStart.map { $0 + Int64(30 + random.next() % 300) * 1000 }
        if let outageStart, let outageEnd { run.outage = outageStart..<outageEnd }
        run.reconnect = ids.map { _ in (outageEnd ?? 0) + Int64(random.next() % 10_000) }
        run.restartAt = random.chance(0.5) ? t0 + 60_000 + Int64(random.next() % 400) * 1000 : nil
        for g in ids.indices { run.events += run.failingEvents(of: g, &random) }
        run.sortByArrival()
        return run
    }

    /// A fate for each gateway; an anchor may only crash, and only briefly.
    private static func drawFates(anchors: Set<Int>, _ random: inout SplitMix64) -> [StreamGateway.Fate] {
        var fates = ids.map { _ in StreamGateway.Fate.normal }
        for g in ids.indices {
            let at = t0 + 40_000 + Int64(random.next() % 400) * 1000
            switch random.next() % 5 {
            case 0 where !anchors.contains(g): fates[g] = .dies(at)
            case 1 where !anchors.contains(g): fates[g] = .lastWill(at, at + Int64(20 + random.next() % 200) * 1000)
            case 2: fates[g] = .crash(at, at + (anchors.contains(g) ? Int64(3 + random.next() % 10) : Int64(3 + random.next() % 120)) * 1000)
            default: break
            }
        }
        return fates
    }

    /// Gateway `g`'s batches that are not lost, each with when it arrives, and its statuses.
    private func failingEvents(of g: Int, _ random: inout SplitMix64) -> [StreamEvent] {
        let gateway = gateways[g]
        let down = gateway.fate?.down
        var seq: UInt64 = 0, epoch = Self.t0, start = Self.t0
        var mine: [StreamBatch] = []
        while start < Self.end {
            let close = start + gateway.window
            defer { start = close }
            let isDown = down.map { close >= $0.from && close < $0.to } ?? false
            if isDown && down?.buffered != true { continue }  // not sent at all
            if case .crash(_, let back) = gateway.fate, close >= back, epoch == Self.t0 { (epoch, seq) = (back, 0) }
            let sightings = heard(by: g, from: start, to: close, &random)
            var arrival = close
            if isDown, let down { arrival = down.to + Int64(mine.count) }
            if let outage, close >= outage.lowerBound && close < reconnect[g] {
                arrival = reconnect[g] + Int64(mine.count)  // replayed oldest first after reconnecting
            }
            if random.chance(gateway.loss) { seq += 1; continue }
            // An edge sends its backlog in order, before its live batches.
            if let previous = mine.last { arrival = max(arrival, previous.arrival + 1) }
            mine.append(StreamBatch(gateway: g, trueTime: close, arrival: arrival, sent: close + gateway.offset, seq: seq, epoch: epoch, sightings: sightings))
            seq += 1
        }
        var events = mine.map { StreamEvent.batch($0) }
        if case .lastWill(let at, let back) = gateway.fate {
            events.append(.status(gateway: g, online: false, at: at + 15_000))
            events.append(.status(gateway: g, online: true, at: back - 1))
        }
        return events
    }

    /// Plays a failing run (live: the tick, the arrival clock, the restart) and checks that no
    /// device exits a store while a batch that carries it there is still on its way, that each
    /// visit the sightings show has one enter and one exit, and that every device ends outside.
    func checkFailing() throws {
        let t0 = Self.t0, devices = self.devices
        // Carriers are batches that arrive on time: a gateway down by its Last Will may replay a
        // buffer of old sightings later, but a down gateway cannot hold an exit (the deaf rule).
        var carriers: [[(event: Int, store: Int)]] = devices.map { _ in [] }
        for (i, event) in events.enumerated() {
            guard let b = event.batch, b.arrival == b.trueTime else { continue }
            for s in b.sightings { if let k = devices.firstIndex(of: s.0) { carriers[k].append((i, gateways[b.gateway].store)) } }
        }
        let description = failingDescription
        var player = StreamPlayer(Driver(try Fixture.engine { $0.rule = rule }),
                                  live: .init(rule: rule, outage: outage, restartAt: restartAt))
        var failures = 0
        try player.play(events) { index, event, t in
            guard t.kind == .exit, t.section == nil, let k = devices.firstIndex(of: t.device) else { return }
            if let later = carriers[k].first(where: { $0.event > index && $0.store == t.store }), failures < 3 {
                failures += 1
                Issue.record("seed \(seed): \(devices[k]) exited store \(t.store) at arrival \(event.arrival - t0) ms (event \(index)), before event \(later.event) that still carries it; \(description)")
            }
        }
        checkVisits(player.driver, description)
    }

    /// Each device's store enters and exits against the visits the sightings show, its state at
    /// the end, and how long after leaving it exited.
    private func checkVisits(_ d: Driver, _ description: String) {
        let t0 = Self.t0
        let exits = d.transitionEvents.filter { $0.section == nil }
        for plan in plans {
            let device = plan.device, from = gateways[plan.first].store, to = gateways[plan.second].store
            let mine = exits.filter { $0.device == device }
            // A visit the sightings show: the second store only if some batch carried the device
            // there (a stay shorter than its gateway's window may leave no sighting at all).
            let heardInSecond = events.contains { e in
                guard let b = e.batch else { return false }
                return gateways[b.gateway].store == to && b.trueTime > plan.move && b.carries(device)
            }
            var expected: [String] = ["enter \(from)"]
            if to != from && heardInSecond { expected += ["exit \(from)", "enter \(to)"] }
            expected.append("exit \(to != from && !heardInSecond ? from : to)")
            let got = mine.map { "\($0.kind) \($0.store)" }
            if got != expected {
                Issue.record("seed \(seed) EVENTS: \(device) \(mine.map { "\($0.kind) \($0.store) @\(($0.time - t0) / 1000)" }) expected \(expected); \(description)")
            }
            // (No check of exit times against the plan: a window's sightings follow where the
            // device is at the window's close, so the data can show a departure a window before
            // the plan does. The carrier check is the exact one.)
        }
        let slowest = gateways.map(\.window).max()!
        for plan in plans {
            let device = plan.device
            let state = d.engine.current(device)?.state ?? .outside
            if state != .outside {
                Issue.record("seed \(seed): \(device) is \(state) at the end (left at \((plan.leave - t0) / 1000) s); \(description)")
            }
            let last = exits.last { $0.device == device && $0.kind == .exit }
            if let last, last.time > plan.leave + 30_000 + 3 * slowest + 12_000 + 60_000 {
                Issue.record("seed \(seed): \(device) exited \((last.time - plan.leave) / 1000) s after leaving; \(description)")
            }
        }
    }

    /// The run's gateways, devices, outage and restart, for a failure message.
    private var failingDescription: String {
        let t0 = Self.t0
        return "\(outage == nil ? "no broker outage" : "broker outage"), \(rule): " + gateways.map(\.description).joined(separator: ", ")
            + "; anchors \(plans.map { Self.ids[$0.first] })→\(plans.map { Self.ids[$0.second] }) move \(plans.map { ($0.move - t0) / 1000 }) leave \(plans.map { ($0.leave - t0) / 1000 })"
            + " outage \(outage.map { ($0.lowerBound - t0) / 1000 } ?? -1)–\(outage.map { ($0.upperBound - t0) / 1000 } ?? -1) restart \(restartAt.map { ($0 - t0) / 1000 } ?? -1)"
    }
}
