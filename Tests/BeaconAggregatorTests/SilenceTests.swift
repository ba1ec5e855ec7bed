import BeaconCore
import TestSupport
import Testing
@testable import BeaconAggregator
@testable import BeaconEngine

/// Silence as evidence of leaving, against the ways gateways actually report: long batch windows,
/// lost heartbeats, clocks behind, statuses without batches, gateways never installed. Each case
/// would otherwise be a stuck device or a false exit.
@Suite("Engine: silence across real gateways")
struct SilenceTests {
    let t0: Int64 = 1_790_000_000_000

    /// Store 2's only gateway batches every `window` ms; `lose` drops every n-th heartbeat.
    func leaveUnderWindow(_ window: Int64, lose: Int? = nil) throws -> Driver {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        var t = t0
        while t < t0 + 60_000 {
            d.batch("gw-h", sent: t + window, stride(from: t, to: t + window, by: 250).map { (Fixture.tag, $0, -60) })
            t += window
        }
        d.clear()
        var n = 0
        while t < t0 + 660_000 {
            n += 1
            if let lose, n % lose == 0 {
                d.seq["gw-h", default: 0] += 1  // lost on the way: a gap in seq
            } else {
                d.batch("gw-h", sent: t + window, [])
            }
            t += window
        }
        return d
    }

    @Test("a gateway with a batch window longer than gateway_silence_s still lets devices exit, and does not flap them to unknown",
          arguments: [10_000, 20_000, 40_000] as [Int64])
    func longWindow(_ window: Int64) throws {
        let d = try leaveUnderWindow(window)
        #expect(d.transitions == ["exit 2/1", "exit 2"])
        let exit = try #require(d.transitionEvents.first?.time)
        #expect(d.states.count == 1, "only the exit's state: \(d.states.map(\.state))")
        // The last sighting was at 60 s; exit_timeout_s 30, plus up to a window of waiting for the
        // heartbeat that covers it, plus the lateness.
        #expect(exit <= t0 + 60_000 + 30_000 + window + 2_000 + 1_000, "exit at \(exit - t0) ms")
        #expect(d.states.allSatisfy { $0.state == .outside }, "\(d.states.map(\.state))")
    }

    @Test("a long window whose busy batches are sealed early (two batches a window) is still known as long")
    func splitWindows() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        let window: Int64 = 20_000
        var t = t0
        while t < t0 + 600_000 {
            let heard = t < t0 + 60_000
            // The edge seals a window early at 3 000 sightings and sends the rest at its end.
            d.batch("gw-h", sent: t + 3_000, heard ? stride(from: t, to: t + 3_000, by: 250).map { (Fixture.tag, $0, -60) } : [])
            d.batch("gw-h", sent: t + window, heard ? stride(from: t + 3_000, to: t + window, by: 250).map { (Fixture.tag, $0, -60) } : [])
            t += window
        }
        #expect(d.transitions == ["enter 2", "enter 2/1", "exit 2/1", "exit 2"])
        #expect(!d.states.contains { $0.state == .unknown }, "\(d.states.map(\.state))")
    }

    @Test("lost heartbeats (one in three) do not restart a device's silence")
    func lostHeartbeats() throws {
        for window in [1_000, 10_000] as [Int64] {
            let d = try leaveUnderWindow(window, lose: 3)
            #expect(d.transitions == ["exit 2/1", "exit 2"], "window \(window)")
        }
    }

    @Test("a gateway whose clock is 8 s behind, or whose window is 10 s, may yet report the device: no false exit", arguments: Tuning.Rule.allCases)
    func slowReporter(_ rule: Tuning.Rule) throws {
        for slowClock in [true, false] {
            var d = Driver(try Fixture.engine { $0.rule = rule })
            var s = t0
            func step(_ aHears: Bool) {
                d.batch("gw-a", sent: s + 1000, aHears ? (0..<4).map { (Fixture.phone, s + Int64($0) * 250, -60) } : [])
                if slowClock {
                    d.batch("gw-b", sent: s + 1000 - 8000, (0..<4).map { (Fixture.phone, s - 8000 + Int64($0) * 250, -62) })
                } else if (s + 1000 - t0) % 10_000 == 0 {
                    d.batch("gw-b", sent: s + 1000, (0..<40).map { (Fixture.phone, s + 1000 - 10_000 + Int64($0) * 250, -62) })
                }
                for g in ["gw-b2", "gw-c", "gw-h"] { d.batch(g, sent: s + 1000, []) }
                s += 1000
            }
            while s < t0 + 20_000 { step(true) }
            d.clear()
            // Now only gw-b hears it.
            while s < t0 + 80_000 { step(false) }
            #expect(!d.transitions.contains("exit 1"), "\(rule), \(slowClock ? "clock 8 s behind" : "10 s window"): \(d.transitions)")
        }
    }

    @Test("a configured gateway never heard from (not installed yet) is not waited for: unknown still resolves")
    func neverInstalled() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.hear(Fixture.phone, ["gw-c": -60], from: t0, to: t0 + 5000, heartbeat: ["gw-a", "gw-b", "gw-c", "gw-h"])
        d.engine.gatewayStatus(try GatewayID("gw-c"), online: false, at: t0 + 5000, into: &d.outputs)
        d.clear()
        d.silence(from: t0 + 5000, to: t0 + 120_000, gateways: ["gw-a", "gw-b", "gw-h"])
        #expect(d.states.first?.state == .unknown)
        #expect(d.transitions == ["exit 1/30", "exit 1"])
        // Restored into section 30 while its gateway is dead, gw-b2 never installed: the same.
        var r = Driver(try Fixture.engine { $0.exitRule = .timeout })
        r.engine.restore([RestoredState(device: Fixture.phone, state: .inside, store: 1, section: 30, since: t0 - 60000, lastSeen: t0 - 1000, sequence: 41)])
        r.silence(from: t0, to: t0 + 120_000, gateways: ["gw-a", "gw-b", "gw-h"])
        #expect(r.transitions == ["exit 1/30", "exit 1"])
    }

    @Test("statuses are not reports: a gateway that only says online (its scanner dead) makes its devices unknown, never exited")
    func statusesOnly() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.hear(Fixture.tag, ["gw-h": -60], from: t0, to: t0 + 5000)
        d.clear()
        var t = t0 + 5000
        while t < t0 + 120_000 {
            if (t - t0) % 10_000 == 0 { d.engine.gatewayStatus(try GatewayID("gw-h"), online: true, at: t, into: &d.outputs) }
            for g in ["gw-a", "gw-b", "gw-b2", "gw-c"] { d.batch(g, sent: t + 1000, []) }
            t += 1000
        }
        #expect(d.transitions.isEmpty)
        #expect(d.states.last?.state == .unknown)
    }

    @Test("a status ahead of batches still queued (an edge reconnecting, a 10 s window) exits no one", arguments: Tuning.Rule.allCases)
    func statusAheadOfBatches(_ rule: Tuning.Rule) throws {
        var d = Driver(try Fixture.engine { $0.rule = rule })
        var t = t0
        while t < t0 + 60_000 {
            d.batch("gw-h", sent: t + 10_000, stride(from: t, to: t + 10_000, by: 250).map { (Fixture.tag, $0, -60) })
            if t == t0 + 30_000 { d.engine.gatewayStatus(try GatewayID("gw-h"), online: true, at: t + 19_000, into: &d.outputs) }
            t += 10_000
        }
        #expect(!d.transitions.contains("exit 2"), "\(d.transitions)")
        var q = Driver(try Fixture.engine { $0.rule = rule })
        q.hear(Fixture.phone, ["gw-a": -60], from: t0 - 20_000, to: t0 + 20_000)
        q.clear()
        q.engine.gatewayStatus(try GatewayID("gw-a"), online: true, at: t0 + 30_000, into: &q.outputs)
        q.hear(Fixture.phone, ["gw-a": -60], from: t0 + 20_000, to: t0 + 40_000)
        #expect(q.transitions.isEmpty, "\(q.transitions)")
    }

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

    @Test("draining a day exits who was inside and ends at the day's end (heartbeats a second only while exits can still come)")
    func drainSteps() throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 20_000)
        d.clear()
        let before = try #require(d.engine.clock.lastSweep)
        d.engine.drain(to: t0 + 20_000 + 86_400_000, into: &d.outputs)
        #expect(d.transitions == ["exit 1/10", "exit 1"])
        #expect(try #require(d.engine.clock.lastSweep) > before)
        #expect(d.engine.clock.watermark == EventTime(t0 + 20_000 + 86_400_000 - 2000))
    }
}
