import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

extension SilenceTests {
    /// How the engine learns each gateway's batch window: long windows, windows split early, a window
    /// that grows, batches swapped or lost on the way. Each case would otherwise leave a device stuck
    /// inside, flapping to unknown, or exited too soon.
    @Suite("Batch windows")
    struct BatchWindows {
        let t0: Int64 = 1_790_000_000_000

        @Test("a gateway with a batch window longer than gateway_silence_s still lets devices exit, and does not flap them to unknown",
              arguments: [10_000, 20_000, 40_000] as [Int64])
        func longWindow(_ window: Int64) throws {
            let d = try Driver.leaving(under: window, from: t0)
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
                let d = try Driver.leaving(under: window, from: t0, losingEvery: 3)
                #expect(d.transitions == ["exit 2/1", "exit 2"], "window \(window)")
            }
        }

        // The first two batches of a run are a split window with a short remainder (a 50 ms first step).
        @Test("a run whose first two batches are a split window (a tiny first step) still learns its 10 s window: the device exits", arguments: Tuning.Rule.allCases)
        func firstStepSplit(_ rule: Tuning.Rule) throws {
            var sents: [Int64] = [t0 + 9_950, t0 + 10_000]
            var s = t0 + 20_000
            while s <= t0 + 600_000 { sents.append(s); s += 10_000 }
            let d = try Driver.gatewayH(sending: sents, tagUntil: t0 + 60_000, rule: rule, epoch: t0)
            #expect(d.transitions.contains("exit 2"), "\(rule): \(d.timeline(from: t0))")
        }

        // Busy period: 10 s window split 5 ways (3000 sightings every 2 s), then quiet 10 s windows.
        @Test("a busy spell of windows split five ways, then quiet 10 s windows: the device exits", arguments: Tuning.Rule.allCases)
        func busyThenQuiet(_ rule: Tuning.Rule) throws {
            var sents: [Int64] = []
            var w = t0
            while w < t0 + 120_000 { for k in 1...5 { sents.append(w + Int64(k) * 2000 - (k == 5 ? 0 : 1)) }; w += 10_000 }
            while w < t0 + 720_000 { sents.append(w + 10_000); w += 10_000 }
            let d = try Driver.gatewayH(sending: sents, tagUntil: t0 + 150_000, rule: rule, epoch: t0)
            #expect(d.transitions.contains("exit 2"), "\(rule): \(d.timeline(from: t0))")
        }

        // 60 s window (the edge's maximum) with 6 splits per window during a rush, then quiet.
        @Test("a 60 s window split six ways in a rush, then quiet: the device exits, at most one unknown spell, since never goes back", arguments: Tuning.Rule.allCases)
        func longWindowRush(_ rule: Tuning.Rule) throws {
            var sents: [Int64] = []
            var w = t0
            while w < t0 + 600_000 { for k in 1...6 { sents.append(w + Int64(k) * 10_000 - (k == 6 ? 0 : 1)) }; w += 60_000 }
            while w < t0 + 1_800_000 { sents.append(w + 60_000); w += 60_000 }
            var d = Driver(try Fixture.engine { $0.exitRule = .timeout; $0.rule = rule })
            var prev = t0, hb = t0
            for s in sents {
                while hb + 1000 <= s { hb += 1000; for g in ["gw-a", "gw-b", "gw-b2", "gw-c"] { d.batch(g, sent: hb, []) } }
                d.batch("gw-h", sent: s, stride(from: prev, to: min(s, t0 + 900_000), by: 250).map { (Fixture.tag, $0, -60) }, epoch: t0)
                prev = s
            }
            #expect(d.transitions.contains("exit 2"), "\(rule): \(d.timeline(from: t0))")
            // The first 60 s gap after a rush of 10 s steps is longer than three known windows: one
            // unknown spell while the window is relearnt, then none.
            #expect(d.states.filter { $0.state == .unknown }.count <= 1, "\(rule): \(d.timeline(from: t0))")
            #expect(d.states.map(\.since) == d.states.map(\.since).sorted(), "since never goes back: \(d.timeline(from: t0))")
        }

        // The window grows fivefold without a restart (no epoch, a spill-continued count).
        @Test("a window that grows from 1 s to 5 s without a restart (an edge without epochs) is learnt: the device exits")
        func windowGrows() throws {
            var sents: [Int64] = []
            var s = t0
            while s < t0 + 60_000 { s += 1000; sents.append(s) }
            while s < t0 + 600_000 { s += 5000; sents.append(s) }
            let d = try Driver.gatewayH(sending: sents, tagUntil: t0 + 90_000)
            #expect(d.transitions.contains("exit 2"), "\(d.timeline(from: t0))")
        }

        // A first step of an hour (the edge paused after its first batch), then the gateway dies.
        @Test("a first step of an hour (an edge paused) does not keep a dead gateway online for hours: windows are at most a minute")
        func hugeFirstStep() throws {
            var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
            d.batch("gw-h", sent: t0, [], epoch: t0)
            d.batch("gw-h", sent: t0 + 3_600_000, [(Fixture.tag, t0 + 3_599_000, -60), (Fixture.tag, t0 + 3_599_500, -60)], epoch: t0)
            var s = t0 + 3_600_000
            for _ in 0..<5 { s += 1000; d.batch("gw-h", sent: s, [(Fixture.tag, s - 500, -60)], epoch: t0) }
            // gw-h dies without a Last Will; store 1's gateways go on.
            d.clear()
            d.silence(from: s, to: s + 600_000, gateways: ["gw-a", "gw-b", "gw-b2", "gw-c"])
            #expect(d.states.contains { $0.state == .unknown }, "expected unknown 15 s after gw-h died: \(d.timeline(from: t0))")
        }

        // A bridge that swaps every pair of batches (10 s window).
        @Test("batches swapped in pairs on the way (a 10 s window): the window is learnt, the device exits")
        func reordered() throws {
            var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
            var n: UInt64 = 0
            while n < 60 {
                for k in [n + 1, n] {
                    let sent = t0 + Int64(k + 1) * 10_000
                    let obs = sent <= t0 + 60_000 ? stride(from: sent - 10_000, to: sent, by: 250).map { (Fixture.tag, $0, -60) } : []
                    d.batch("gw-h", sent: sent, obs, seq: k, epoch: t0)
                }
                n += 2
            }
            #expect(d.transitions.contains("exit 2"), "\(d.timeline(from: t0))")
        }

        // Control: splits with the same sent (step 0) are harmless.
        @Test("splits sent with the same time are harmless: the device exits")
        func sameSentSplits() throws {
            var sents: [Int64] = []
            var w = t0
            while w < t0 + 120_000 { for _ in 0..<5 { sents.append(w + 10_000) }; w += 10_000 }
            while w < t0 + 600_000 { sents.append(w + 10_000); w += 10_000 }
            let d = try Driver.gatewayH(sending: sents, tagUntil: t0 + 100_000, epoch: t0)
            #expect(d.transitions.contains("exit 2"), "\(d.timeline(from: t0))")
        }
    }
}
