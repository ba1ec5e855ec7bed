import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

extension SilenceTests {
    /// A gateway that cannot hear is no evidence: its devices are unknown while it is offline, only
    /// says it is online, or was never installed; its return, or the rest of its store listening for
    /// the whole timeout, resolves them.
    @Suite("Gateways offline, back, or never heard from")
    struct GatewayOutages {
        let t0: Int64 = 1_790_000_000_000

        @Test("a gateway going offline makes its devices unknown, not exited; its return resolves it")
        func gatewayOffline() throws {
            var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
            d.hear(Fixture.phone, ["gw-c": -60], from: t0, to: t0 + 5000, heartbeat: ["gw-c"])
            d.clear()
            d.engine.gatewayStatus(try GatewayID("gw-c"), online: false)
            // Nothing else in the store is alive either: unknown for as long as it takes, never exit.
            d.silence(from: t0 + 5000, to: t0 + 120_000, gateways: ["gw-h"])
            #expect(d.transitions.isEmpty)
            #expect(d.states.last?.state == .unknown)
            d.clear()
            d.hear(Fixture.phone, ["gw-c": -61], from: t0 + 120_000, to: t0 + 123_000, heartbeat: ["gw-c"])
            #expect(d.transitions.isEmpty, "it never left: no enter event")
            #expect(d.states.first?.state == .inside)
        }

        @Test("a gateway back from an outage resolves its devices by what it hears: its silence counts from its return")
        func gatewayReturns() throws {
            for hearsIt in [true, false] {
                var d = Driver(try Fixture.engine())
                d.hear(Fixture.phone, ["gw-c": -60], from: t0 - 20000, to: t0 + 5000)
                d.engine.gatewayStatus(try GatewayID("gw-c"), online: false)
                d.silence(from: t0 + 5000, to: t0 + 15000, gateways: ["gw-a", "gw-b", "gw-b2", "gw-h"])
                #expect(d.states.last?.state == .unknown)
                d.clear()
                d.engine.gatewayStatus(try GatewayID("gw-c"), online: true)
                if hearsIt {
                    d.hear(Fixture.phone, ["gw-c": -61], from: t0 + 15000, to: t0 + 20000)
                    #expect(d.transitions.isEmpty, "it never left: no exit, no enter")
                    #expect(d.states.first?.state == .inside)
                } else {
                    d.silence(from: t0 + 15000, to: t0 + 60000)
                    #expect(d.transitions == ["exit 1/30", "exit 1"])
                    let exit = try #require(d.transitionEvents.first?.time)
                    // Not at once (its silence from before the outage is not evidence), and at the
                    // latest after the exit timeout (plus the watermark's lateness) from its return.
                    #expect(exit >= t0 + 15000 + 6000 && exit <= t0 + 15000 + 32000, "exited \(exit - t0 - 15000) ms after the gateway came back")
                }
            }
        }

        @Test("restored inside while its store's gateways are all down: unknown, not exited")
        func restoredWhileStoreDown() throws {
            var d = Driver(try Fixture.engine())
            d.engine.restore([RestoredState(device: Fixture.phone, state: .inside, store: 1, section: 10, since: t0 - 60000, lastSeen: t0 - 1000, sequence: 41)])
            for gw in ["gw-a", "gw-b", "gw-b2", "gw-c"] { d.engine.gatewayStatus(try GatewayID(gw), online: false) }
            d.silence(from: t0, to: t0 + 120_000, gateways: ["gw-h"])
            #expect(d.transitions.isEmpty)
            #expect(d.states.last?.state == .unknown)
        }

        @Test("unknown resolves to exit once the rest of the store has listened for the whole exit timeout")
        func unknownResolvesToExit() throws {
            var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
            d.hear(Fixture.phone, ["gw-c": -60], from: t0, to: t0 + 5000)
            d.engine.gatewayStatus(try GatewayID("gw-c"), online: false)
            d.clear()
            d.silence(from: t0 + 5000, to: t0 + 60000, gateways: ["gw-a", "gw-b", "gw-b2", "gw-h"])
            #expect(d.states.first?.state == .unknown)
            #expect(d.transitions == ["exit 1/30", "exit 1"])
        }

        @Test("a configured gateway never heard from (not installed yet) is not waited for: unknown still resolves")
        func neverInstalled() throws {
            var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
            d.hear(Fixture.phone, ["gw-c": -60], from: t0, to: t0 + 5000, heartbeat: ["gw-a", "gw-b", "gw-c", "gw-h"])
            d.engine.gatewayStatus(try GatewayID("gw-c"), online: false)
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
                if (t - t0) % 10_000 == 0 { d.engine.gatewayStatus(try GatewayID("gw-h"), online: true) }
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
                if t == t0 + 30_000 { d.engine.gatewayStatus(try GatewayID("gw-h"), online: true) }
                t += 10_000
            }
            #expect(!d.transitions.contains("exit 2"), "\(d.transitions)")
            var q = Driver(try Fixture.engine { $0.rule = rule })
            q.hear(Fixture.phone, ["gw-a": -60], from: t0 - 20_000, to: t0 + 20_000)
            q.clear()
            q.engine.gatewayStatus(try GatewayID("gw-a"), online: true)
            q.hear(Fixture.phone, ["gw-a": -60], from: t0 + 20_000, to: t0 + 40_000)
            #expect(q.transitions.isEmpty, "\(q.transitions)")
        }
    }
}
