import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

extension SilenceTests {
    /// How long silence lasts before an exit: the fixed timeout, the adaptive one, a batch late
    /// within the lateness bound, and draining at the end of a recording.
    @Suite("Exit after silence")
    struct ExitRules {
        let t0: Int64 = 1_790_000_000_000

        @Test("fixed exit timeout: exit after 30 s of silence, not before", arguments: [Tuning.ExitRule.timeout])
        func exitTimeout(_ rule: Tuning.ExitRule) throws {
            var d = Driver(try Fixture.engine { $0.exitRule = rule })
            d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 10000)
            d.clear()
            d.silence(from: t0 + 10000, to: t0 + 40000)
            #expect(d.transitions.isEmpty)
            d.silence(from: t0 + 40000, to: t0 + 45000)
            #expect(d.transitions == ["exit 1/10", "exit 1"])
            let exit = try #require(d.transitionEvents.last)
            // Last sighting at t0+9750; 30 s later, seen through the 2 s watermark and 0.5 s sweeps.
            #expect(exit.time > t0 + 9750 + 30000 && exit.time <= t0 + 9750 + 31000)
            #expect(exit.dwell! > 39000)
            #expect(d.states.last?.state == .outside)
        }

        @Test("adaptive exit: a chatty device exits well before 30 s, never before exit_min_s")
        func adaptiveExit() throws {
            var d = Driver(try Fixture.engine { $0.exitRule = .adaptive; $0.exitMinSeconds = 6 })
            d.hear(Fixture.phone, ["gw-a": -60, "gw-b": -70], from: t0, to: t0 + 20000)
            d.clear()
            d.silence(from: t0 + 20000, to: t0 + 25000)
            #expect(d.transitions.isEmpty)
            d.silence(from: t0 + 25000, to: t0 + 40000)
            let exit = try #require(d.transitionEvents.last)
            #expect(d.transitions == ["exit 1/10", "exit 1"])
            #expect(exit.time >= t0 + 19750 + 6000 && exit.time < t0 + 19750 + 10000)
        }

        @Test("a batch arriving late within the lateness bound still prevents a false exit")
        func lateBatch() throws {
            var d = Driver(try Fixture.engine { $0.exitRule = .timeout; $0.latenessSeconds = 3 })
            d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
            d.clear()
            // gw-b's batch for second 34 is delayed behind gw-a's heartbeat for second 36.
            d.silence(from: t0 + 5000, to: t0 + 34000)
            d.batch("gw-a", sent: t0 + 36000, [])
            d.batch("gw-b", sent: t0 + 35000, [(Fixture.phone, t0 + 34500, -64)])
            d.silence(from: t0 + 36000, to: t0 + 40000)
            #expect(!d.transitions.contains("exit 1"))
        }

        @Test("draining after a recording (replay --drain) exits who is still inside; who only an offline gateway heard stays unknown")
        func drain() throws {
            var d = Driver(try Fixture.engine())
            d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 20000)
            d.hear(Fixture.tag, ["gw-h": -60], from: t0, to: t0 + 20000)
            d.engine.gatewayStatus(try GatewayID("gw-h"), online: false)
            d.clear()
            d.engine.drain(to: t0 + 80000, into: &d.outputs)
            #expect(d.transitions == ["exit 1/10", "exit 1"])
            #expect(d.states.map(\.device) == [Fixture.tag, Fixture.phone])
            #expect(d.states.first?.state == .unknown)
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
}
