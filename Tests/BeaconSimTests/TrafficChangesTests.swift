import BeaconCore
import BeaconEngine
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
        #expect(one.changesByPhone == [a: 2] && two.changesByPhone == [b: 1])
    }

    /// Phones that each changed `counts[i]` times.
    func traffic(_ counts: [Int]) throws -> TrafficChanges {
        var out = TrafficChanges()
        for (i, count) in counts.enumerated() { out.changesByPhone[try DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-9-\(i + 1)")] = count }
        return out
    }

    @Test("a surplus is judged against how much the phones' own differences vary, each phone against itself")
    func surplus() throws {
        // Every phone one change more: a surplus of 5 that no phone contradicts.
        let steady = try #require(TrafficChanges.surplus(of: traffic([3, 1, 11, 1, 5]), over: traffic([2, 0, 10, 0, 4])))
        #expect(steady.changes == 5 && steady.phones == 5 && steady.standardError == 0 && steady.isBeyondChance)
        // A surplus of 4 from one phone that changed 10 more while another changed 6 fewer:
        // differences 10, −6, 0, 0, 0: a standard error of √5 × their standard deviation, 12.9 —
        // the surplus is chance.
        let noisy = try #require(TrafficChanges.surplus(of: traffic([12, 0, 5, 5, 1]), over: traffic([2, 6, 5, 5, 1])))
        let differences = [10.0, -6, 0, 0, 0], mean = 0.8
        let sd = (differences.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / 4).squareRoot()
        #expect(noisy.changes == 4 && abs(noisy.standardError - sd * 5.0.squareRoot()) < 1e-9 && !noisy.isBeyondChance, "\(noisy)")
        // A phone only one rule reported counts as zero changes under the other.
        var fewer = try traffic([1, 1, 1, 1, 1])
        fewer.changesByPhone.removeValue(forKey: try DeviceID("ib-E2C56DB5-DFFB-48D2-B060-D0F5A71096E0-9-2"))
        #expect(TrafficChanges.surplus(of: try traffic([1, 3, 1, 1, 1]), over: fewer)?.changes == 3)
        #expect(TrafficChanges.surplus(of: try traffic([9, 9, 9, 9]), over: try traffic([0, 0, 0, 0])) == nil,
                "fewer phones than the level needs say nothing of chance")
    }

    @Test("a chain that publishes no exits, or no entries into a section, is still scored on every decision")
    func everyDecision() throws {
        var config = SimulatedCalibration(siteSeed: 1).chain
        config.stores[0].notifyOnExit = false
        config.stores[0].sections[0].notifyOnEntry = false
        for scored in [WalkCalibration.uncalibrated(config), WalkCalibration.calibrated(config, with: Calibration(stores: []))] {
            #expect(scored.stores.allSatisfy { $0.notifyOnEntry && $0.notifyOnExit })
            #expect(scored.stores.flatMap(\.sections).allSatisfy { $0.notifyOnEntry && $0.notifyOnExit })
        }
    }

    @Test("the verdict keeps the default where the calibration is more restless on the traffic than chance explains")
    func verdict() throws {
        var worse = EvaluationReport(), improved = EvaluationReport()
        worse.sectionAccuracy = 0.80
        improved.sectionAccuracy = 0.90
        let better = CalibrationAssessment.Comparison(before: worse, after: improved)
        #expect(Verdict(heldOut: better, otherPhones: better) == .switchOn)
        #expect(Verdict(heldOut: better, otherPhones: better, traffic: TrafficComparison(before: try traffic([2, 6, 5, 5, 1]), after: try traffic([12, 0, 5, 5, 1]))) == .switchOn)
        let restless = Verdict(heldOut: better, otherPhones: better, traffic: TrafficComparison(before: try traffic([2, 0, 10, 0, 4]), after: try traffic([3, 1, 11, 1, 5])))
        guard case .keepDefault(let reason) = restless else {
            Issue.record("\(restless)")
            return
        }
        #expect(reason.contains("16 → 21 section changes of 5 phones"), "\(reason)")
        var before = try traffic([2, 0, 10, 0, 4]), after = try traffic([3, 1, 11, 1, 5])
        before.phoneHours = 4
        after.phoneHours = 4
        let line = try #require(CalibrationAssessment.trafficLine(7, TrafficComparison(before: before, after: after)))
        #expect(line.hasPrefix("store 7, on its traffic (no truth): 16 → 21 section changes of 5 phones (+31 % ± 0 % from phone to phone; 4 → 5 per phone-hour)"), "\(line)")
    }
}
