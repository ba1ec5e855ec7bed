import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// Moves between stores: on silence in the first and a sighting in the second, or on a sustained
/// lead of the neighbour's gateway.
@Suite("Engine: moves between stores")
struct StoreMoveTests {
    let t0: Int64 = 1_790_000_000_000

    @Test("heard in another store after the first went quiet: exit one, enter the other")
    func storeChange() throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        d.clear()
        d.hear(Fixture.phone, ["gw-h": -60], from: t0 + 10000, to: t0 + 12000)
        #expect(d.transitions == ["exit 1/10", "exit 1", "enter 2", "enter 2/1"])
    }

    @Test("a device still heard faintly by its store moves once the neighbour's gateway leads by over the margin long enough")
    func movesOnLead() throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60, "gw-h": -85], from: t0, to: t0 + 10_000)
        #expect(d.transitions == ["enter 1", "enter 1/10"])
        d.clear()
        // Walked next door: store 1's gateway still hears it through the wall, 20 dB under gw-h.
        d.hear(Fixture.phone, ["gw-a": -80, "gw-h": -60], from: t0 + 10_000, to: t0 + 20_000)
        #expect(d.transitions == ["exit 1/10", "exit 1", "enter 2", "enter 2/1"])
        let moved = try #require(d.transitionEvents.first).time - (t0 + 10_000)
        #expect(moved < 5_000, "moved \(moved) ms after the walk, while store 1 still heard it")
    }

    @Test("a lead under the margin, however long, moves nobody between stores")
    func staysUnderMargin() throws {
        var d = Driver(try Fixture.engine())
        d.hear(Fixture.phone, ["gw-a": -60, "gw-h": -85], from: t0, to: t0 + 10_000)
        d.clear()
        // 4 dB, under the default 6 dB margin.
        d.hear(Fixture.phone, ["gw-a": -70, "gw-h": -66], from: t0 + 10_000, to: t0 + 120_000)
        #expect(d.transitions.isEmpty, "\(d.transitions)")
    }
}
