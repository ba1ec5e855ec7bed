import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

extension SilenceTests {
    /// Clocks that disagree: a gateway's ahead of the chain or behind it, and the engine's clock
    /// moved on past what the gateways have reported.
    @Suite("Clocks ahead and behind")
    struct Clocks {
        let t0: Int64 = 1_790_000_000_000

        @Test("a clock moved past what the gateways have reported (the service's tick over a backlog) exits no one", arguments: [12_000, 40_000] as [Int64])
        func clockAheadOfBatches(_ ahead: Int64) throws {
            var d = Driver(try Fixture.engine())
            d.hear(Fixture.phone, ["gw-a": -60], from: t0 - 20000, to: t0 + 5000)
            d.clear()
            d.engine.advance(to: t0 + 5000 + ahead, into: &d.outputs)
            // The backlog of batches that were queued while the clock moved on.
            d.hear(Fixture.phone, ["gw-a": -60], from: t0 + 5000, to: t0 + 10000 + ahead)
            #expect(d.transitions.isEmpty)
            // Past the gateways' silence bound they may count as silent (unknown), never as listening.
            #expect(d.states.allSatisfy { $0.state != .outside })
            #expect(d.states.last.map { $0.state == .inside } ?? true)
        }

        @Test("a gateway whose clock runs ahead (up to what live mode accepts, 12 s) exits no one and silences no one", arguments: ["gw-h", "gw-c"])
        func fastGateway(_ fast: String) throws {
            var d = Driver(try Fixture.engine())
            var second = t0
            while second < t0 + 60000 {
                for gw in ["gw-a", "gw-b", "gw-b2", "gw-c", "gw-h"] {
                    let heard = gw == "gw-a" ? (0..<4).map { (Fixture.phone, second + Int64($0) * 250, -60) } : []
                    d.batch(gw, sent: second + (gw == fast ? 12000 : 1000), heard)
                }
                second += 1000
            }
            #expect(d.transitions == ["enter 1", "enter 1/10"])
            #expect(d.states.allSatisfy { $0.state == .inside })
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

        // A gateway whose clock is 20 s behind (or a bridge delaying it 20 s).
        @Test("a gateway whose clock is 20 s behind is alive while its batches come: no inside/unknown flapping", arguments: Tuning.Rule.allCases)
        func behindClock(_ rule: Tuning.Rule) throws {
            var d = Driver(try Fixture.engine { $0.rule = rule })
            var s = t0
            while s < t0 + 60_000 {
                d.batch("gw-h", sent: s + 1000 - 20_000, (0..<4).map { (Fixture.tag, s - 20_000 + Int64($0) * 250, -60) })
                for g in ["gw-a", "gw-b", "gw-b2", "gw-c"] { d.batch(g, sent: s + 1000, []) }
                s += 1000
            }
            // It keeps sending, so it is alive though its clock lags the chain's: at most one unknown
            // spell at the start (the chain's time jumps 20 s past its first batch), no 1 Hz flapping.
            #expect(d.states.count <= 3, "\(rule): \(d.timeline(from: t0))")
        }
    }
}
