import BeaconCore
import Testing
@testable import BeaconSim

/// What a rule reported of a store's traffic, without a truth: section changes per phone-hour in
/// the store and exits followed by a quick return (``TrafficChanges``).
@Suite("Calibration: a rule's restlessness on the store's traffic")
struct TrafficChangesTests {
    let t0: Int64 = 1_790_000_000_000

    func enter(_ device: DeviceID, _ store: StoreNumber, _ section: SectionNumber? = nil, at seconds: Int64) -> ReportedTransition {
        ReportedTransition(time: t0 + seconds * 1000, device: device, kind: .enter, store: store, section: section)
    }

    func exit(_ device: DeviceID, _ store: StoreNumber, at seconds: Int64) -> ReportedTransition {
        ReportedTransition(time: t0 + seconds * 1000, device: device, kind: .exit, store: store, section: nil)
    }

    @Test("changes after each entry's first section, hours from entry to exit or the end, returns within a minute")
    func counts() throws {
        let a = try DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-9-1"), b = try DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-9-2")
        let reported = [
            enter(a, 1, at: 0), enter(a, 1, 10, at: 0), enter(a, 1, 20, at: 600), enter(a, 1, 10, at: 900), exit(a, 1, at: 1800),
            // Back 59 s later: quick; then out and back 61 s later: not.
            enter(a, 1, at: 1859), enter(a, 1, 10, at: 1859), exit(a, 1, at: 2000), enter(a, 1, at: 2061), enter(a, 1, 10, at: 2061),
            // Another store's phone, still in at the end.
            enter(b, 2, at: 0), enter(b, 2, 30, at: 0), enter(b, 2, 40, at: 100),
        ]
        let counted = TrafficChanges.count(reported, end: t0 + 3600 * 1000)
        let one = try #require(counted[1]), two = try #require(counted[2])
        #expect(one.sectionChanges == 2, "the first section of each entry is no change")
        #expect(one.quickReturns == 1)
        #expect(abs(one.phoneHours - (1800.0 + 141 + 1539) / 3600) < 1e-9, "\(one.phoneHours)")
        #expect(two.sectionChanges == 1 && two.quickReturns == 0 && two.phoneHours == 1)
        #expect(two.changesPerHour == 1)
        #expect(TrafficChanges().changesPerHour == nil)
    }
}
