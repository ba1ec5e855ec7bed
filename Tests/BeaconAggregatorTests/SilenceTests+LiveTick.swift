import BeaconCore
import TestSupport
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

/// Silence as the live service meets it (the engine's own cases are the suite of the same name in
/// BeaconEngineTests): the service's tick moves the engine's clock between batches, so silence
/// is noticed when nothing arrives at all.
@Suite("Silence")
enum SilenceTests {}

extension SilenceTests {
    /// The tick against long windows and late batches: each case would otherwise flap a device to
    /// unknown, or leave one inside after its gateways went quiet.
    @Suite("The live service's tick")
    struct LiveTick {
        let t0: Int64 = 1_790_000_000_000

        @Test("live: a 20 s batch window with the service's tick exits once, without unknown states on the way", arguments: [10_000, 20_000] as [Int64])
        func liveLongWindow(_ window: Int64) throws {
            var p = MessageProcessor(chain: try Fixture.config().resolve(), scheme: .standard, aggregator: try AggregatorID("agg-test"))
            var out: [Outbound] = []
            var seq = 0, now = t0, next = t0 + window
            while now < t0 + 600_000 {
                if now == next + 100 {
                    let times = next <= t0 + 120_000 ? Array(stride(from: next - window, to: next, by: 500)) : []
                    let sightings = times.map { #"{"dev":"mac-AA:BB:CC:DD:EE:01","t":\#($0),"rssi":-60}"# }.joined(separator: ",")
                    let batch = Array(#"{"v":1,"gw":"gw-h","seq":\#(seq),"sent":\#(next),"sightings":[\#(sightings)]}"#.utf8)
                    #expect(p.handle(topic: "beaconnet/sightings/2/gw-h", payload: batch, now: now, into: &out) == .accepted)
                    seq += 1
                    next += window
                }
                p.tick(now: now, connected: true, into: &out)
                now += 50
            }
            let lines = out.map(\.traceLine)
            #expect(lines.filter { $0.contains("/exit ") }.count == 2)
            // Until its second batch shows its window, a gateway silent beyond gateway_silence_s is
            // down: at most that one spell of unknown.
            let unknown = lines.filter { $0.contains(#""state":"unknown""#) }
            #expect(unknown.count <= 1, "\(unknown)")
        }

        // The tick, when the last accepted batch was a late one (lag 10 min).
        @Test("the tick after one late batch (a spill file emptying) still notices gateways gone silent")
        func tickLag() throws {
            var p = MessageProcessor(chain: try Fixture.config().resolve(), scheme: .standard, aggregator: try AggregatorID("agg-test"))
            var out: [Outbound] = []
            var now = t0
            var seq = 0
            while now < t0 + 20_000 {
                let sightings = (0..<4).map { #"{"dev":"mac-AA:BB:CC:DD:EE:01","t":\#(now - 1000 + Int64($0) * 250),"rssi":-60}"# }.joined(separator: ",")
                let b = Array(#"{"v":1,"gw":"gw-h","seq":\#(seq),"sent":\#(now),"sightings":[\#(sightings)]}"#.utf8)
                #expect(p.handle(topic: "beaconnet/sightings/2/gw-h", payload: b, now: now + 100, into: &out) == .accepted)
                seq += 1
                p.tick(now: now + 100, connected: true, into: &out)
                now += 1000
            }
            // One late batch from another gateway (a spill file emptying): sent 10 min ago.
            let late = Array(#"{"v":1,"gw":"gw-a","seq":0,"sent":\#(now - 600_000),"sightings":[]}"#.utf8)
            #expect(p.handle(topic: "beaconnet/sightings/1/gw-a", payload: late, now: now, into: &out) == .accepted)
            out.removeAll()
            // Then nothing arrives (every edge's uplink down, the aggregator still connected) for 5 min.
            while now < t0 + 320_000 { p.tick(now: now, connected: true, into: &out); now += 500 }
            let lines = out.map(\.traceLine)
            #expect(lines.contains { $0.contains(#""state":"unknown""#) }, "device should be unknown: \(lines)")
        }
    }
}
