import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// The street test: an exit decided while a leaving shopper is still heard through the door, and
/// no exit for someone standing just inside it. Radio from the log-distance model with walls, the
/// storefront, the body and seeded noise — not the engine's own numbers.
@Suite("Street exit")
struct StreetTests {
    static let t0: Int64 = 1_790_000_000_000
    static let phone = try! DeviceID("ib-\(Fixture.uuid)-3-3")
    /// A 10 × 16 m store: the entrance (street door on its y = 0 edge) and the back.
    static let gateways: [(id: String, section: Int, x: Double, y: Double)] = [
        ("gw-e1", 10, 3, 3), ("gw-e2", 10, 8, 6), ("gw-k1", 20, 3, 12), ("gw-k2", 20, 8, 14),
    ]

    static func engine(street: Bool) throws -> AggregationEngine {
        var tuning = Tuning()
        tuning.streetExit = street
        let config = ChainConfig(
            siteUUID: Fixture.uuid,
            stores: [.init(major: 3, name: "Corner", sections: [
                .init(minor: 10, name: "Entrance", adjacent: [20], polygon: [[0, 0], [10, 0], [10, 8], [0, 8]], streetDoor: true),
                .init(minor: 20, name: "Back", adjacent: [10], polygon: [[0, 8], [10, 8], [10, 16], [0, 16]]),
            ])],
            gateways: gateways.map { .init(id: $0.id, store: 3, section: $0.section, position: [$0.x, $0.y]) },
            tuning: tuning)
        return AggregationEngine(chain: try config.resolve())
    }

    /// What each gateway hears of a phone at (x, y) — outside when y < 0, through a 10 dB
    /// storefront — with `body` dB of the carrier in the way; nil below a −104 dBm receiver floor.
    static func rssi(_ g: (id: String, section: Int, x: Double, y: Double), x: Double, y: Double, body: Double,
                     noise: inout SplitMix64) -> Int? {
        let d = ((g.x - x) * (g.x - x) + (g.y - y) * (g.y - y) + 2.25).squareRoot()
        let mySection = y < 0 ? 10 : (y < 8 ? 10 : 20)
        let walls = (mySection == g.section ? 0.0 : 4.0) + (y < 0 ? 10.0 : 0)
        let level = -59 - 22 * log10(d) - walls - body + Double.random(in: -4...4, using: &noise)
        return level < -104 ? nil : Int(level.rounded())
    }

    /// Drives the phone along `path` (position per second), four adverts a second.
    static func walk(_ d: inout Driver, from start: Int64, _ path: [(x: Double, y: Double)], body: Double, seed: UInt64 = 1) -> Int64 {
        var noise = SplitMix64(state: seed)
        return d.walk(phone, from: start, path, gateways: gateways.map(\.id)) { g, x, y in
            rssi(gateways[g], x: x, y: y, body: body, noise: &noise)
        }
    }

    @Test("a shopper walking away outside the door is exited while still heard, long before the silence would")
    func walkingAway() throws {
        var latencies: [Bool: Double] = [:]
        for street in [true, false] {
            var d = Driver(try Self.engine(street: street))
            let inside = Array(repeating: (x: 5.0, y: 4.0), count: 30)
            var t = Self.walk(&d, from: Self.t0, inside, body: 0)
            #expect(d.transitions.contains("enter 3"))
            // To the door, then 1.2 m/s away down the street for 30 s.
            let crossing = t + 3000
            let out = (0..<34).map { (x: 5.0, y: 3.0 - 1.2 * Double($0)) }
            t = Self.walk(&d, from: t, out, body: 8)
            d.silence(from: t, to: t + 40_000, gateways: Self.gateways.map(\.id))
            let exit = try #require(d.transitionEvents.first { $0.kind == .exit && $0.section == nil })
            let latency = Double(exit.time - crossing) / 1000
            print("street exit \(street ? "on" : "off"): exit \(String(format: "%.1f", latency)) s after crossing the door")
            latencies[street] = latency
            #expect(d.transitions.filter { $0 == "enter 3" }.count == 1, "no re-entry while walking away: \(d.transitions)")
        }
        // Heard for ~25 s down the street: the silence alone ends the visit late.
        #expect(latencies[true]! < 15, "the street test did not decide while the shopper was heard walking away")
        #expect(latencies[false]! - latencies[true]! > 8)
    }

    @Test("someone lingering just inside the door, body towards the street, is not exited")
    func lingeringAtTheDoor() throws {
        for seed in 0..<5 {
            var d = Driver(try Self.engine(street: true))
            let path = Array(repeating: (x: 5.0, y: 4.0), count: 10) + Array(repeating: (x: 4.0 + Double(seed) * 0.5, y: 0.8), count: 180)
            _ = Self.walk(&d, from: Self.t0, path, body: 8, seed: UInt64(seed) + 10)
            #expect(d.transitions.filter { $0.hasPrefix("exit 3") || $0 == "exit 3" }.isEmpty, "false exit: \(d.transitions)")
        }
    }

    @Test("the branch and bound finds exactly the best position a plain search over every position finds")
    func bestPositionIsExact() throws {
        let chain = try Self.engine(street: true).chain
        let model = try #require(StreetModel(chain: chain, store: 0))
        var random = SplitMix64(state: 7)
        for _ in 0..<200 {
            let heard = Array((0..<model.gateways.count).shuffled(using: &random).prefix(Int.random(in: 1...model.gateways.count, using: &random)))
            let links = heard.map { g in
                (g: g, x: Double.random(in: -100 ... -50, using: &random), variance: Double.random(in: 0.5...20, using: &random), power: -59.0)
            }
            let missed = (0..<model.gateways.count).filter { !heard.contains($0) }.map { (g: $0, floor: Double.random(in: -100 ... -88, using: &random)) }
            for table in [model.insideLoss, model.pathLoss] {
                let plain = (0..<table.positions).map {
                    StreetLikelihood.logLikelihood(links, missed: missed, power: -59, table: table, position: $0)
                }.max()!
                let fast = StreetLikelihood.bestLogLikelihood(links, missed: missed, power: -59, table: table)
                #expect(abs(plain - fast) < 1e-9, "plain \(plain), branch and bound \(fast)")
                // Stopping at `enough`: a position at or above it when the best is, else the best.
                let enough = plain + Double.random(in: -20...5, using: &random)
                let lower = Int.random(in: 0..<table.positions, using: &random)
                let first = lower..<min(table.positions, lower + Int.random(in: 0...20, using: &random))
                let stopped = StreetLikelihood.bestLogLikelihood(links, missed: missed, power: -59, table: table, first: first, enough: enough)
                if plain >= enough {
                    #expect(stopped >= enough && stopped <= plain + 1e-9, "best \(plain), enough \(enough), stopped at \(stopped)")
                } else {
                    #expect(abs(plain - stopped) < 1e-9, "best \(plain) below enough \(enough), got \(stopped)")
                }
            }
        }
    }
}
