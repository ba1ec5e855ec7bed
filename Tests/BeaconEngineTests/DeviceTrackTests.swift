import BeaconCore
import TestSupport
import Testing
@testable import BeaconEngine

/// A device's track: freed some minutes after the device leaves, and its links kept for the
/// gateways that hear it best.
@Suite("Engine: device tracks and their links")
struct DeviceTrackTests {
    let t0: Int64 = 1_790_000_000_000

    @Test("a device forgotten 10 min after leaving frees its track; the next device and the first one's return are told apart")
    func forgetAndReuse() throws {
        var d = Driver(try Fixture.engine { $0.exitRule = .timeout })
        d.hear(Fixture.phone, ["gw-a": -60], from: t0, to: t0 + 5000)
        #expect(d.engine.trackedDevices == 1)
        d.silence(from: t0 + 5000, to: t0 + 5000 + 11 * 60_000)
        #expect(d.transitions == ["enter 1", "enter 1/10", "exit 1/10", "exit 1"])
        #expect(d.engine.trackedDevices == 0 && d.engine.current(Fixture.phone) == nil)
        d.clear()
        // The tag takes the freed track; then the phone comes back, to another section.
        let t1 = t0 + 5000 + 11 * 60_000
        d.hear(Fixture.tag, ["gw-h": -60], from: t1, to: t1 + 5000)
        d.hear(Fixture.phone, ["gw-c": -60], from: t1 + 5000, to: t1 + 10000)
        #expect(d.engine.trackedDevices == 2)
        #expect(d.transitionEvents.map(\.device) == [Fixture.tag, Fixture.tag, Fixture.phone, Fixture.phone])
        #expect(d.transitions == ["enter 2", "enter 2/1", "enter 1", "enter 1/30"])
        let chain = d.engine.chain
        #expect(d.engine.current(Fixture.tag)?.section == chain.sectionIndex(store: 2, section: 1))
        #expect(d.engine.current(Fixture.phone)?.section == chain.sectionIndex(store: 1, section: 30))
    }

    @Test("a device heard by more gateways than it keeps links for keeps the strongest; a stale link makes room for any newcomer")
    func strongestLinksKept() throws {
        // Twelve gateways, gw-l0 strongest … gw-l11 weakest; the two strongest in section 10.
        let ids = (0..<12).map { "gw-l\($0)" }
        let config = ChainConfig(
            siteUUID: Fixture.uuid,
            stores: [.init(major: 1, name: "Main St", sections: [
                .init(minor: 10, name: "Entrance", adjacent: [20]),
                .init(minor: 20, name: "Grocery", adjacent: [10]),
            ])],
            gateways: ids.enumerated().map { .init(id: $1, store: 1, section: $0 < 2 ? 10 : 20) },
            tuning: Tuning())
        var d = Driver(AggregationEngine(chain: try config.resolve()))
        var levels: [String: Int] = [:]
        for (i, id) in ids.enumerated() { levels[id] = -50 - 3 * i }
        func linked() -> Set<String> {
            let ti = d.engine.devices.track(of: Fixture.phone)!
            return Set(d.engine.links.links[ti].map { d.engine.chain.gateways[Int($0.gateway)].id.rawValue })
        }
        // Strongest first in every second: keeping the most recently heard would keep the weakest 8.
        d.hear(Fixture.phone, levels, from: t0, to: t0 + 6000, heartbeat: ids)
        #expect(linked() == Set(ids[0..<LinkTable.maxLinks]))
        #expect(d.engine.current(Fixture.phone)?.section == d.engine.chain.sectionIndex(store: 1, section: 10))
        // The strong ones fall silent: past stale_after_s the weaker gateways take their links.
        d.hear(Fixture.phone, levels.filter { ids[8...].contains($0.key) }, from: t0 + 6000, to: t0 + 12000, heartbeat: ids)
        #expect(linked().isSuperset(of: Set(ids[8...])))
        #expect(d.engine.current(Fixture.phone)?.section == d.engine.chain.sectionIndex(store: 1, section: 20))
    }
}
