import Foundation
import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// A genuine edge (gw-a, one batch a second, now and then restarting with a new epoch) whose
/// topic also carries forged batches: absurd, random, near and far `seq`s, other epochs and
/// none, `sent` from a minute behind to the 12 s ahead a live aggregator accepts. Whatever the
/// forgeries, a device the edge has heard for 5 s must be inside its store (entered, or still
/// inside from an earlier visit: forged restarts can delay an exit, see docs/ENGINE.md), and the
/// gateway's `loss` must not count a forged jump.
@Suite("Engine: forged sequence numbers against a genuine edge")
struct SequenceForgeryPropertyTests {
    let t0: Int64 = 1_790_000_000_000

    /// A device's stay in store 1, heard by gw-a four times a second: [start, end) ms.
    struct Visit {
        let device: DeviceID
        let start: Int64
        let end: Int64
    }

    @Test("random forged seqs and epochs never keep the edge's devices out for more than 5 s", arguments: 0..<200)
    func forgeries(_ seed: Int) throws {
        var random = SplitMix64(state: UInt64(seed) &* 0x9E37_79B9 &+ 17)
        let visits = try Self.visits(&random, from: t0, to: t0 + 15 * 60_000)
        let epochs = random.chance(0.8)  // older edges send none
        let rate = random.pick([0.2, 1.0, 3.0])  // forged batches per genuine one, on average
        var d = Driver(try Fixture.engine())
        var seq: UInt64 = 0
        var epoch: Int64? = epochs ? t0 - 5_000 : nil
        var late: Set<Int64> = []  // the visits (by start) found outside after 5 s
        var forged = 0
        var second = t0
        while second < t0 + 15 * 60_000 {
            let sent = second + 1000
            if random.chance(0.003) {
                // The edge restarts: a new run from seq 0.
                seq = 0
                epoch = epochs ? sent : nil
            }
            let heard = Self.heard(visits, from: second)
            var order: [Bool] = [true] + (0..<Self.poisson(rate, &random)).map { _ in false }
            order.shuffle(using: &random)
            for genuine in order {
                if genuine {
                    d.batch("gw-a", sent: sent, heard, seq: seq, epoch: epoch)
                    seq += 1
                } else {
                    let (fseq, fepoch, fsent) = Self.forgery(near: seq, epoch: epoch, sent: sent, &random)
                    d.batch("gw-a", sent: fsent, [], seq: fseq, epoch: fepoch)
                    forged += 1
                }
            }
            for gw in ["gw-b", "gw-b2", "gw-c", "gw-h"] { d.batch(gw, sent: sent, []) }
            // Heard for 5 s or more: it must be inside its store by now.
            for visit in visits where visit.start + 5_000 <= sent && visit.end > second {
                let now = d.engine.current(visit.device)
                if now?.state != .inside || now?.store != 0 {
                    if late.insert(visit.start).inserted && late.count <= 3 {
                        Issue.record("seed \(seed): \(visit.device), heard since +\((visit.start - t0) / 1000) s, is \(now.map { "\($0.state)" } ?? "unknown to the engine") at +\((sent - t0) / 1000) s (epochs \(epochs), \(rate) forged per second)")
                    }
                }
            }
            d.clear()
            second += 1000
        }
        let description = "seed \(seed): epochs \(epochs), \(forged) forged batches (\(rate) per second)"
        let gateway = try #require(d.engine.gatewayCounters().first { $0.id.rawValue == "gw-a" })
        // Forged near seqs (less than 64 ahead) are counted as loss until the edge's own fill them;
        // a far jump never is. The bound: every forged batch skipping at most 63.
        #expect(gateway.lost <= UInt64(forged) * 63, "\(description): loss \(gateway.lost)")
    }

    /// The edge's sightings in the window starting at `second`: four a second per device there.
    static func heard(_ visits: [Visit], from second: Int64) -> [(DeviceID, Int64, Int)] {
        var heard: [(DeviceID, Int64, Int)] = []
        for visit in visits {
            for k in Int64(0)..<4 {
                let time = second + k * 250
                if time >= visit.start && time < visit.end { heard.append((visit.device, time, -60)) }
            }
        }
        return heard
    }

    /// Two or three visits per device, with a gap long enough to have exited in between.
    static func visits(_ random: inout SplitMix64, from start: Int64, to end: Int64) throws -> [Visit] {
        var visits: [Visit] = []
        for k in 0..<3 {
            let device = try DeviceID("mac-AA:BB:CC:DD:EE:1\(k)")
            var t = start + 5_000 + Int64(random.next() % 60) * 1000 + Int64(random.next() % 1000)
            while t < end - 120_000 {
                let stay = Int64(20 + random.next() % 70) * 1000
                visits.append(Visit(device: device, start: t, end: t + stay))
                t += stay + Int64(120 + random.next() % 120) * 1000 + Int64(random.next() % 1000)
            }
        }
        return visits
    }

    /// A forged batch's `seq`, `epoch` and `sent`, near the edge's `seq` or not.
    static func forgery(near seq: UInt64, epoch: Int64?, sent: Int64, _ random: inout SplitMix64) -> (UInt64, Int64?, Int64) {
        let forgedSeq: UInt64 = switch random.next() % 7 {
        case 0: (1 << 53) - 1
        case 1: random.next() >> 11
        case 2: seq + 64 + random.next() % 10_000
        case 3: seq > 64 ? seq - 64 - random.next() % min(seq - 64, 1_000) : seq + random.next() % 64
        case 4: seq + random.next() % 64
        case 5: seq > 1 ? seq - 1 - random.next() % min(seq - 1, 63) : seq
        default: seq + 1
        }
        let forgedEpoch: Int64? = switch random.next() % 10 {
        case 0, 1: Int64(random.next() % 1_000_000_000_000) + 1_000_000_000_000
        case 2: nil
        default: epoch
        }
        let forgedSent = sent - 60_000 + Int64(random.next() % 72_000)
        return (forgedSeq, forgedEpoch, forgedSent)
    }

    /// A Poisson draw with mean `mean` (Knuth's method: means here are small).
    static func poisson(_ mean: Double, _ random: inout SplitMix64) -> Int {
        let limit = exp(-mean)
        var k = 0
        var p = Double(random.next() % 1_000_000) / 1_000_000
        while p > limit {
            k += 1
            p *= Double(random.next() % 1_000_000) / 1_000_000
        }
        return k
    }
}
