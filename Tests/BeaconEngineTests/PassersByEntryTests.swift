import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconEngine

/// A store that keeps passers-by out (`passers_by`), in the engine: someone at its window is not
/// taken in, the same person walking in is, a move from next door is judged as an entry is, and a
/// restart invents nothing. Radio from the log-distance model with walls, the storefront, the
/// body and seeded noise — not the engine's own numbers.
@Suite("Passers-by at the engine")
struct PassersByEntryTests {
    static let t0: Int64 = 1_790_000_000_000
    static let phone = try! DeviceID("ib-\(Fixture.uuid)-3-3")
    /// Two 10 × 16 m stores side by side on one street (y < 0), store 3 at x 0–10 and store 4 at
    /// x 10–20, each with an entrance (street door on its y = 0 edge) and a back; positions in
    /// the street's frame.
    static let gateways: [(id: String, store: Int, section: Int, x: Double, y: Double)] = [
        ("gw-e1", 3, 10, 3, 3), ("gw-e2", 3, 10, 8, 6), ("gw-k1", 3, 20, 3, 12), ("gw-k2", 3, 20, 8, 14),
        ("gw-f1", 4, 10, 13, 3), ("gw-f2", 4, 10, 18, 6), ("gw-l1", 4, 20, 13, 12), ("gw-l2", 4, 20, 18, 14),
    ]

    /// The chain: store 3, and store 4 when `neighbour`; `passersBy` for the stores that keep
    /// passers-by out.
    static func engine(passersBy: Set<Int>, neighbour: Bool = false) throws -> AggregationEngine {
        let majors = neighbour ? [3, 4] : [3]
        let stores: [ChainConfig.Store] = majors.map { major in
            .init(major: major, name: "Store \(major)", sections: [
                .init(minor: 10, name: "Entrance", adjacent: [20], polygon: [[0, 0], [10, 0], [10, 8], [0, 8]], streetDoor: true),
                .init(minor: 20, name: "Back", adjacent: [10], polygon: [[0, 8], [10, 8], [10, 16], [0, 16]]),
            ], passersBy: passersBy.contains(major) ? true : nil)
        }
        // Each store's plan in its own frame: store 4's starts at x = 10 on the street.
        let config = ChainConfig(
            siteUUID: Fixture.uuid, stores: stores,
            gateways: gateways.filter { majors.contains($0.store) }.map {
                .init(id: $0.id, store: $0.store, section: $0.section, position: [$0.x - Double(($0.store - 3) * 10), $0.y])
            })
        return AggregationEngine(chain: try config.resolve())
    }

    /// What a gateway hears of a phone at (x, y): outside when y < 0, through a 10 dB storefront;
    /// a 15 dB wall between the stores, 4 dB between sections; `body` dB of the carrier in the
    /// way; nil below a −104 dBm receiver floor.
    static func rssi(_ g: (id: String, store: Int, section: Int, x: Double, y: Double), x: Double, y: Double, body: Double,
                     noise: inout SplitMix64) -> Int? {
        let d = ((g.x - x) * (g.x - x) + (g.y - y) * (g.y - y) + 2.25).squareRoot()
        let store = x < 10 ? 3 : 4
        let section = y < 8 ? 10 : 20
        var walls = y < 0 ? 10.0 : 0
        if store != g.store { walls += 15 } else if section != g.section { walls += 4 }
        let level = -59 - 22 * log10(d) - walls - body + Double.random(in: -4...4, using: &noise)
        return level < -104 ? nil : Int(level.rounded())
    }

    /// Drives the phone along `path` (a position per second), four adverts a second, heard by
    /// the gateways of `stores`; returns the time after the walk.
    static func walk(_ d: inout Driver, from start: Int64, _ path: [(x: Double, y: Double)], body: Double,
                     noise: inout SplitMix64, stores: [Int] = [3]) -> Int64 {
        let heard = gateways.filter { stores.contains($0.store) }
        return d.walk(phone, from: start, path, gateways: heard.map(\.id)) { g, x, y in
            rssi(heard[g], x: x, y: y, body: body, noise: &noise)
        }
    }

    /// `seconds` at one place.
    static func stand(_ x: Double, _ y: Double, _ seconds: Int) -> [(x: Double, y: Double)] {
        Array(repeating: (x: x, y: y), count: seconds)
    }

    /// From (x, y0) straight to (x, y1) at 1.2 m/s.
    static func line(x: Double, from y0: Double, to y1: Double) -> [(x: Double, y: Double)] {
        let steps = Int((abs(y1 - y0) / 1.2).rounded(.up))
        return (1...steps).map { (x: x, y: y0 + (y1 - y0) * Double($0) / Double(steps)) }
    }

    @Test("someone standing 2 m out from the window for two minutes is kept out only where the store says passers_by",
          arguments: [UInt64(1), 2, 3])
    func windowShopper(seed: UInt64) throws {
        for passersBy in [true, false] {
            var d = Driver(try Self.engine(passersBy: passersBy ? [3] : []))
            var noise = SplitMix64(state: seed)
            // Along the street, two minutes at the window facing it, and on.
            let path = (0..<10).map { (x: -12 + 1.2 * Double($0), y: -2.0) } + Self.stand(4, -2, 120)
                + (0..<20).map { (x: 4 + 1.2 * Double($0), y: -2.0) }
            let t = Self.walk(&d, from: Self.t0, path, body: 0, noise: &noise)
            d.silence(from: t, to: t + 40_000, gateways: Self.gateways.filter { $0.store == 3 }.map(\.id))
            let entered = d.transitions.contains("enter 3")
            #expect(entered == !passersBy, "passers_by \(passersBy), seed \(seed): \(d.transitions)")
        }
    }

    @Test("kept out at the window, the same person is let in a few seconds after walking in", arguments: [UInt64(1), 2, 3])
    func refusedThenWalksIn(seed: UInt64) throws {
        var d = Driver(try Self.engine(passersBy: [3]))
        var noise = SplitMix64(state: seed)
        let t = Self.walk(&d, from: Self.t0, Self.stand(4, -2, 60), body: 0, noise: &noise)
        #expect(!d.transitions.contains("enter 3"), "taken in from the window: \(d.transitions)")
        // Two metres to the door, then in to the back: first heard inside a second later.
        let crossing = t + 1000
        _ = Self.walk(&d, from: t, Self.line(x: 4, from: -2, to: 12) + Self.stand(4, 12, 40), body: 0, noise: &noise)
        let enter = try #require(d.transitionEvents.first { $0.kind == .enter && $0.section == nil }, "never let in: \(d.transitions)")
        let latency = Double(enter.time - crossing) / 1000
        print("passers_by, seed \(seed): let in \(String(format: "%.1f", latency)) s after crossing the door")
        #expect(latency > -1 && latency < 10, "let in \(latency) s after the crossing")
        #expect(d.transitions.filter { $0 == "enter 3" }.count == 1, "\(d.transitions)")
    }

    @Test("a move in from the store next door is judged: taken in deep inside, not at the window", arguments: [UInt64(1), 2])
    func moveFromNextDoor(seed: UInt64) throws {
        // Deep in store 4 after store 3 (through a back corridor): the move is let in.
        var d = Driver(try Self.engine(passersBy: [4], neighbour: true))
        var noise = SplitMix64(state: seed)
        let t = Self.walk(&d, from: Self.t0, Self.stand(5, 12, 30), body: 0, noise: &noise, stores: [3, 4])
        #expect(d.transitions.contains("enter 3"))
        d.clear()
        _ = Self.walk(&d, from: t, Self.stand(15, 12, 40), body: 0, noise: &noise, stores: [3, 4])
        #expect(d.transitions.contains("enter 4"), "not let into store 4 from next door: \(d.transitions)")
        #expect(d.transitions.filter { $0 == "exit 3" }.count == 1, "\(d.transitions)")

        // Out of store 3's door and two minutes at store 4's window: kept out where it says
        // passers_by, taken in where it does not.
        for passersBy in [true, false] {
            var d = Driver(try Self.engine(passersBy: passersBy ? [4] : [], neighbour: true))
            var noise = SplitMix64(state: seed)
            var t = Self.walk(&d, from: Self.t0, Self.stand(5, 4, 30), body: 0, noise: &noise, stores: [3, 4])
            let path = Self.line(x: 5, from: 4, to: -2) + (1...8).map { (x: 5 + 1.2 * Double($0), y: -2.0) } + Self.stand(15, -2, 120)
            t = Self.walk(&d, from: t, path, body: 0, noise: &noise, stores: [3, 4])
            d.silence(from: t, to: t + 40_000, gateways: Self.gateways.map(\.id))
            #expect(d.transitions.contains("enter 4") == !passersBy, "passers_by \(passersBy), seed \(seed): \(d.transitions)")
        }
    }

    @Test("a restart inside a store that keeps passers-by out invents no exit or enter")
    func restoreInside() throws {
        var d = Driver(try Self.engine(passersBy: [3]))
        _ = d.engine.restore([RestoredState(device: Self.phone, state: .inside, store: 3, section: 20, since: Self.t0 - 60_000,
                                            lastSeen: Self.t0 - 1000, sequence: 7)])
        var noise = SplitMix64(state: 5)
        _ = Self.walk(&d, from: Self.t0, Self.stand(5, 12, 60), body: 0, noise: &noise)
        #expect(d.transitions.isEmpty, "\(d.transitions)")
    }
}
