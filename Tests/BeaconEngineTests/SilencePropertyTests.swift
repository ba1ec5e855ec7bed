import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// Random gateway behaviour against two promises of the silence rules, over many seeds:
/// - **safety**: a device heard in every window of a gateway whose batches all arrive is never
///   exited while it is heard;
/// - **liveness**: once nobody hears the devices and every gateway goes on sending heartbeats, each
///   device exits, within the exit timeout plus a few of its gateways' windows.
/// Gateways differ in batch window (1–60 s), clock offset (±2 s: NTP gone slightly wrong; larger
/// offsets are the gateway-window tests' subject), loss of batches, batches swapped in pairs on
/// the way, and windows split early.
@Suite("Engine: silence properties under random gateways")
struct SilencePropertyTests {
    let t0: Int64 = 1_790_000_000_000

    /// The package's seeded generator, so a failing seed can be replayed.
    typealias Random = SplitMix64

    struct Gateway {
        let id: String
        let window: Int64
        let offset: Int64
        let loss: Double
        let swaps: Bool
        let splits: Bool
    }

    /// One batch as it travels: when it is really sent, and what it says.
    struct Batch {
        let gateway: Int
        let trueTime: Int64
        var arrival: Int64
        let sent: Int64
        let seq: UInt64
        let sightings: [(DeviceID, Int64, Int)]
    }

    @Test("no exit while a device is heard; every device exits once it is not", arguments: 0..<300)
    func properties(_ seed: Int) throws {
        var random = Random(state: UInt64(seed) &* 7919 &+ 1)
        let ids = ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"]
        let gateways = ids.map { id in
            Gateway(id: id, window: random.pick([1_000, 1_000, 2_000, 5_000, 10_000, 20_000, 60_000]),
                    offset: random.pick([0, 0, -1_000, 1_000, -2_000]), loss: random.pick([0, 0, 0.05, 0.1]),
                    swaps: random.chance(0.2), splits: random.chance(0.3))
        }
        // Each device has an anchor: a gateway that loses nothing and hears it in every window
        // until it leaves; others hear it now and then.
        let anchors = ids.indices.filter { gateways[$0].loss == 0 && !gateways[$0].swaps }
        guard !anchors.isEmpty else { return }
        let devices = try (0..<3).map { try DeviceID("mac-AA:BB:CC:DD:EE:0\($0)") }
        let anchor = devices.map { _ in random.pick(anchors) }
        let leaves = devices.map { _ in t0 + 60_000 + Int64(random.next() % 240) * 1000 }
        let end = t0 + 20 * 60_000

        // Every gateway's batches over the run, in the order they travel.
        var batches: [Batch] = []
        for (g, gw) in gateways.enumerated() {
            var seq: UInt64 = 0
            var start = t0
            var mine: [Batch] = []
            while start < end {
                let close = start + gw.window
                var sightings: [(DeviceID, Int64, Int)] = []
                for (k, device) in devices.enumerated() where close <= leaves[k] {
                    if anchor[k] == g {
                        // Its anchor hears it every second of the window.
                        sightings += stride(from: Int64(0), to: gw.window, by: 1000).map { (device, start + gw.offset + $0 + 500, -60) }
                    } else if (ids[anchor[k]] != "gw-h") == (gw.id != "gw-h") && random.chance(0.3) {
                        // Others of its store (store 2 has gw-h only) now and then.
                        sightings += (0..<4).map { (device, start + gw.offset + gw.window / 2 + Int64($0) * 250, -60) }
                    }
                }
                if gw.splits && !sightings.isEmpty {
                    // Sealed early at 3 000 sightings (here a third into the window, at its latest
                    // sighting's time), the rest in a second batch at the window's end.
                    let seal = start + gw.window / 3 + gw.offset
                    let early = sightings.filter { $0.1 <= seal }
                    sightings.removeAll { $0.1 <= seal }
                    mine.append(Batch(gateway: g, trueTime: start + gw.window / 3, arrival: start + gw.window / 3, sent: early.map(\.1).max() ?? seal, seq: seq, sightings: early))
                    seq += 1
                }
                mine.append(Batch(gateway: g, trueTime: close, arrival: close, sent: close + gw.offset, seq: seq, sightings: sightings))
                seq += 1
                start = close
            }
            if gw.swaps {
                // Each pair held up on the way by up to 2 s: a fast gateway's first arrives just
                // after the second, a slow one's is merely late.
                var i = 0
                while i + 1 < mine.count {
                    mine[i].arrival = min(mine[i + 1].arrival + 1, mine[i].arrival + 2_000)
                    i += 2
                }
            }
            batches += mine.filter { _ in !random.chance(gw.loss) }
        }
        batches.sort { ($0.arrival, $0.gateway) < ($1.arrival, $1.gateway) }

        // The last batch, in the order they arrive, that carries each device: no exit before it.
        let lastCarrier = devices.map { device in batches.lastIndex { $0.sightings.contains { $0.0 == device } } ?? -1 }
        let lastHeard = devices.map { device in batches.filter { $0.sightings.contains { $0.0 == device } }.map(\.trueTime).max() ?? t0 }
        // Every rule shares the silence rules: each seed runs one of them.
        let rule = Tuning.Rule.allCases[seed % Tuning.Rule.allCases.count]
        var d = Driver(try Fixture.engine { $0.rule = rule })
        let description = "\(rule): " + gateways.map { "\($0.id) w\($0.window / 1000)s off\($0.offset / 1000)s loss\($0.loss)\($0.swaps ? " swaps" : "")\($0.splits ? " splits" : "")" }.joined(separator: ", ")
        for (index, batch) in batches.enumerated() {
            let before = d.outputs.count
            d.batch(gateways[batch.gateway].id, sent: batch.sent, batch.sightings, seq: batch.seq, epoch: t0)
            for output in d.outputs[before...] {
                guard case .transition(let t) = output, t.kind == .exit, t.section == nil,
                      let k = devices.firstIndex(of: t.device) else { continue }
                #expect(index > lastCarrier[k], "seed \(seed): \(devices[k]) exited at true time \(batch.trueTime - t0) ms, before a batch that still carries it (heard until \(lastHeard[k] - t0); anchor \(ids[anchor[k]]); \(description))")
                // Liveness bound: the exit timeout, three of the slowest window (a batch lost or
                // swapped on the way), the lateness, and some slack for sweeps and clocks.
                let slowest = gateways.map(\.window).max()!
                #expect(batch.trueTime <= lastHeard[k] + 30_000 + 3 * slowest + 2_000 + 10_000,
                        "seed \(seed): \(devices[k]) exited \(batch.trueTime - lastHeard[k]) ms after it was last heard (\(description))")
            }
        }
        let events = d.transitionEvents.filter { $0.section == nil }
        for (k, device) in devices.enumerated() {
            // Outside, or already forgotten (10 min after its exit); and it did enter and exit.
            let state = d.engine.current(device)?.state ?? .outside
            #expect(state == .outside, "seed \(seed): \(device) is \(state) 15 min after leaving (anchor \(ids[anchor[k]]); \(description))")
            #expect(events.filter { $0.device == device }.map(\.kind) == [.enter, .exit], "seed \(seed): \(device) (\(description))")
        }
    }
}

extension SplitMix64 {
    mutating func pick<T>(_ values: [T]) -> T { values[Int(next() % UInt64(values.count))] }
    mutating func chance(_ p: Double) -> Bool { Double(next() % 1_000_000) / 1_000_000 < p }
}
