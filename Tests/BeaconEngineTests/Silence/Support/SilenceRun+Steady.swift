import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

extension SilenceRun {
    /// Gateways that all stay up and differ in batch window (1–60 s), clock offset (±2 s: NTP
    /// gone slightly wrong; larger offsets are the clock tests' subject), loss of batches,
    /// batches swapped in pairs on the way, and windows split early. Each of three devices has an
    /// anchor, a gateway that loses nothing and hears it in every window until it leaves; others
    /// of its store hear it now and then. Nil when no gateway can be an anchor.
    static func steady(seed: Int) throws -> SilenceRun? {
        var random = SplitMix64(state: UInt64(seed) &* 7919 &+ 1)
        let gateways = ids.indices.map { g in
            StreamGateway(id: ids[g], store: stores[g], window: random.pick([1_000, 1_000, 2_000, 5_000, 10_000, 20_000, 60_000]),
                          offset: random.pick([0, 0, -1_000, 1_000, -2_000]), loss: random.pick([0, 0, 0.05, 0.1]),
                          swaps: random.chance(0.2), splits: random.chance(0.3))
        }
        let anchors = gateways.indices.filter { gateways[$0].loss == 0 && !gateways[$0].swaps }
        guard !anchors.isEmpty else { return nil }
        let devices = try (0..<3).map { try DeviceID("mac-AA:BB:CC:DD:EE:0\($0)") }
        let anchor = devices.map { _ in random.pick(anchors) }
        // Heard in every window that closes by the drawn time.
        let leave = devices.map { _ in t0 + 60_000 + Int64(random.next() % 240) * 1000 + 1 }
        var run = SilenceRun(seed: seed, gateways: gateways, plans: devices.indices.map {
            DevicePlan(device: devices[$0], enter: t0, move: .max, leave: leave[$0], first: anchor[$0], second: anchor[$0])
        })
        for g in gateways.indices { run.events += run.steadyBatches(of: g, &random).map { .batch($0) } }
        run.sortByArrival()
        return run
    }

    /// Gateway `g`'s batches over the run that are not lost, each with when it arrives.
    private func steadyBatches(of g: Int, _ random: inout SplitMix64) -> [StreamBatch] {
        let gateway = gateways[g]
        var seq: UInt64 = 0
        var start = Self.t0
        var mine: [StreamBatch] = []
        while start < Self.end {
            let close = start + gateway.window
            var sightings = heard(by: g, from: start, to: close, &random)
            if gateway.splits && !sightings.isEmpty {
                // Sealed early at 3 000 sightings (here a third into the window, at its latest
                // sighting's time), the rest in a second batch at the window's end.
                let seal = start + gateway.window / 3 + gateway.offset
                let early = sightings.filter { $0.1 <= seal }
                sightings.removeAll { $0.1 <= seal }
                let sealed = start + gateway.window / 3
                mine.append(StreamBatch(gateway: g, trueTime: sealed, arrival: sealed, sent: early.map(\.1).max() ?? seal, seq: seq, epoch: Self.t0, sightings: early))
                seq += 1
            }
            mine.append(StreamBatch(gateway: g, trueTime: close, arrival: close, sent: close + gateway.offset, seq: seq, epoch: Self.t0, sightings: sightings))
            seq += 1
            start = close
        }
        if gateway.swaps {
            // Each pair held up on the way by up to 2 s: a fast gateway's first arrives just
            // after the second, a slow one's is merely late.
            var i = 0
            while i + 1 < mine.count {
                mine[i].arrival = min(mine[i + 1].arrival + 1, mine[i].arrival + 2_000)
                i += 2
            }
        }
        return mine.filter { _ in !random.chance(gateway.loss) }
    }

    /// Plays a steady run and checks the two promises of the silence rules:
    /// - **safety**: a device is never exited before the last batch that carries it has arrived;
    /// - **liveness**: once nobody hears the devices and every gateway goes on sending heartbeats,
    ///   each device exits, within the exit timeout plus a few of its gateways' windows.
    func checkSteady() throws {
        let t0 = Self.t0, devices = self.devices
        let batches = events.compactMap(\.batch)
        // The last batch, in the order they arrive, that carries each device: no exit before it.
        let lastCarrier = devices.map { device in events.lastIndex { $0.batch?.carries(device) == true } ?? -1 }
        let lastHeard = devices.map { device in batches.filter { $0.carries(device) }.map(\.trueTime).max() ?? t0 }
        let description = "\(rule): " + gateways.map(\.description).joined(separator: ", ")
        // Liveness bound: the exit timeout, three of the slowest window (a batch lost or swapped
        // on the way), the lateness, and some slack for sweeps and clocks.
        let slowest = gateways.map(\.window).max()!
        var player = StreamPlayer(Driver(try Fixture.engine { $0.rule = rule }))
        try player.play(events) { index, event, t in
            guard t.kind == .exit, t.section == nil, let k = devices.firstIndex(of: t.device), let batch = event.batch else { return }
            #expect(index > lastCarrier[k], "seed \(seed): \(devices[k]) exited at true time \(batch.trueTime - t0) ms, before a batch that still carries it (heard until \(lastHeard[k] - t0); anchor \(Self.ids[plans[k].first]); \(description))")
            #expect(batch.trueTime <= lastHeard[k] + 30_000 + 3 * slowest + 2_000 + 10_000,
                    "seed \(seed): \(devices[k]) exited \(batch.trueTime - lastHeard[k]) ms after it was last heard (\(description))")
        }
        let d = player.driver
        let exits = d.transitionEvents.filter { $0.section == nil }
        for (k, device) in devices.enumerated() {
            // Outside, or already forgotten (10 min after its exit); and it did enter and exit.
            let state = d.engine.current(device)?.state ?? .outside
            #expect(state == .outside, "seed \(seed): \(device) is \(state) 15 min after leaving (anchor \(Self.ids[plans[k].first]); \(description))")
            #expect(exits.filter { $0.device == device }.map(\.kind) == [.enter, .exit], "seed \(seed): \(device) (\(description))")
        }
    }
}
