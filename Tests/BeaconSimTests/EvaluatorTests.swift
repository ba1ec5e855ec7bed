import Testing
import BeaconCore
@testable import BeaconSim

@Suite("Evaluator on hand-made cases")
struct EvaluatorTests: OneDeviceTimeline {

    @Test("a perfect report scores 100 % with zero latency")
    func perfect() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(200, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(100, .exit, 1, 1), report(100, .enter, 1, 2),
                       report(200, .exit, 1, 2), report(200, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 400_000)
        #expect(r.sectionAccuracy == 1 && r.storeAccuracy == 1)
        #expect(r.enterLatencies == [0] && r.exitLatencies == [0] && r.sectionChangeLatencies == [0])
        #expect(r.flaps == 0 && r.falseEnters == 0 && r.falseExits == 0 && r.missedEnters == 0)
        #expect(abs(r.deviceHours - 200.0 / 3600) < 1e-9)
    }

    @Test("late reports: latencies measured, accuracy loses exactly the late time")
    func late() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(200, nil, nil)]
        let reports = [report(2, .enter, 1), report(2, .enter, 1, 1), report(103, .exit, 1, 1), report(103, .enter, 1, 2),
                       report(215, .exit, 1, 2), report(215, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 400_000)
        #expect(r.enterLatencies == [2000] && r.sectionChangeLatencies == [3000] && r.exitLatencies == [15000])
        // 200 s inside; wrong for 2 s (not yet entered) + 3 s (old section) = 195/200.
        #expect(abs(r.sectionAccuracy - 195.0 / 200) < 1e-9)
        #expect(abs(r.storeAccuracy - 198.0 / 200) < 1e-9)
        // Both delays fall inside the 3 s after a true change (6 s of the 200): settled, all right.
        #expect(abs(r.settlingShare - 6.0 / 200) < 1e-9)
        #expect(r.settledSectionAccuracy == 1)
    }

    @Test("settled accuracy counts only what stays wrong past the settling time")
    func settled() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(200, nil, nil)]
        // The move to section 2 is reported 5 s late: wrong 100–105 s, of which 103–105 s is settled time.
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(105, .exit, 1, 1), report(105, .enter, 1, 2),
                       report(200, .exit, 1, 2), report(200, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 400_000)
        #expect(abs(r.sectionAccuracy - 195.0 / 200) < 1e-9)
        #expect(abs(r.settledSectionAccuracy - 192.0 / 194) < 1e-9)
        #expect(abs(r.settlingShare - 6.0 / 200) < 1e-9)
    }

    @Test("flaps, false exits and missed changes are counted")
    func mistakes() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(300, nil, nil)]
        let reports = [report(1, .enter, 1), report(1, .enter, 1, 1),
                       // two flaps to 3 and back, unrelated to the truth
                       report(30, .exit, 1, 1), report(30, .enter, 1, 3), report(40, .exit, 1, 3), report(40, .enter, 1, 1),
                       // the move to 2 is never reported; a false exit and re-entry
                       report(150, .exit, 1, 1), report(150, .exit, 1), report(160, .enter, 1), report(160, .enter, 1, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        #expect(r.flaps == 2)
        #expect(r.missedSectionChanges == 1)
        #expect(r.falseExits == 1 && r.falseEnters == 1)
        #expect(r.missedExits == 1)
        #expect(abs(r.flapsPerDeviceHour - 2 / (300.0 / 3600)) < 1e-9)
    }

    @Test("a section exit clears only the section it names, whatever the order within a millisecond")
    func exitOrder() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(200, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(100, .enter, 1, 2), report(100, .exit, 1, 1),
                       report(200, .exit, 1, 2), report(200, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 400_000)
        #expect(r.sectionAccuracy == 1)
    }

    @Test("an exit names its store: the store left reporting after the next one's enter (two instances) does not end the new stay")
    func exitOfAnotherStore() {
        let truths = [truth(0, 1, 1), truth(100, nil, nil), truth(102, 2, 5), truth(300, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(103, .enter, 2), report(103, .enter, 2, 5),
                       report(110, .exit, 1, 1), report(110, .exit, 1), report(300, .exit, 2, 5), report(300, .exit, 2)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        // Inside 298 s; wrong only for the 1 s in store 2 before its enter.
        #expect(abs(r.storeAccuracy - 297.0 / 298) < 1e-9)
        #expect(abs(r.sectionAccuracy - 297.0 / 298) < 1e-9)
    }

    @Test("another store's late exit does not hide a flap in the store the device moved on to")
    func lateExitHidesNoFlap() {
        let truths = [truth(0, 1, 1), truth(60, nil, nil), truth(65, 2, 20), truth(600, nil, nil)]
        let reports = [report(1, .enter, 1), report(1, .enter, 1, 1), report(66, .enter, 2), report(66, .enter, 2, 20),
                       report(75, .exit, 1, 1), report(75, .exit, 1),
                       report(200, .exit, 2, 20), report(200, .enter, 2, 21), report(210, .exit, 2, 21), report(210, .enter, 2, 20),
                       report(600, .exit, 2, 20), report(600, .exit, 2)]
        #expect(Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 900_000).flaps == 2)
    }

    @Test("events of one millisecond are ordered by seq: a section enter recorded before its store's enter still counts")
    func sameMillisecondBySeq() {
        func numbered(_ r: ReportedTransition, _ seq: UInt64) -> ReportedTransition { var r = r; r.sequence = seq; return r }
        let truths = [truth(0, 1, 1), truth(200, nil, nil)]
        let reports = [numbered(report(0, .enter, 1, 1), 2), numbered(report(0, .enter, 1), 1),
                       numbered(report(200, .exit, 1), 4), numbered(report(200, .exit, 1, 1), 3)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 400_000)
        #expect(r.sectionAccuracy == 1 && r.flaps == 0)
    }

    @Test("a flap just after entering and its return count as two flaps: the first section claims the true entry")
    func earlyFlap() {
        let truths = [truth(0, 1, 1), truth(300, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(10, .exit, 1, 1), report(10, .enter, 1, 3),
                       report(20, .exit, 1, 3), report(20, .enter, 1, 1), report(300, .exit, 1, 1), report(300, .exit, 1)]
        #expect(Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000).flaps == 2)
        // A wrong first section corrected soon after is no flap: the true entry excuses the correction.
        let corrected = [report(0, .enter, 1), report(0, .enter, 1, 3), report(4, .exit, 1, 3), report(4, .enter, 1, 1),
                         report(300, .exit, 1, 1), report(300, .exit, 1)]
        #expect(Evaluator.evaluate(truth: truths, reported: corrected, end: t0 + 600_000).flaps == 0)
    }

    @Test("a move straight from one store into another is an exit and an entry, neither false")
    func directStoreMove() {
        let truths = [truth(0, 1, 1), truth(100, 2, 5), truth(300, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(101, .exit, 1, 1), report(101, .exit, 1),
                       report(101, .enter, 2), report(101, .enter, 2, 5), report(300, .exit, 2, 5), report(300, .exit, 2)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        #expect(r.falseEnters == 0 && r.falseExits == 0 && r.missedEnters == 0 && r.missedExits == 0)
        #expect(r.enterLatencies == [0, 1000] && r.exitLatencies == [1000, 0])
        // Silence about the move: its exit and entry are missed (and so is the exit from store 2,
        // reported as one from store 1, which is false).
        let silent = [report(0, .enter, 1), report(0, .enter, 1, 1), report(300, .exit, 1, 1), report(300, .exit, 1)]
        let s = Evaluator.evaluate(truth: truths, reported: silent, end: t0 + 600_000)
        #expect(s.missedEnters == 1 && s.missedExits == 2 && s.falseExits == 1)
    }

    @Test("a return after a pass too short to count is no change to detect; following the pass is no flap")
    func shortPassBack() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(103, 1, 1), truth(300, nil, nil)]
        let steady = [report(0, .enter, 1), report(0, .enter, 1, 1), report(300, .exit, 1, 1), report(300, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: steady, end: t0 + 600_000)
        #expect(r.missedSectionChanges == 0 && r.sectionChangeLatencies.isEmpty)
        let following = [report(0, .enter, 1), report(0, .enter, 1, 1), report(101, .exit, 1, 1), report(101, .enter, 1, 2),
                         report(104, .exit, 1, 2), report(104, .enter, 1, 1), report(300, .exit, 1, 1), report(300, .exit, 1)]
        let f = Evaluator.evaluate(truth: truths, reported: following, end: t0 + 600_000)
        #expect(f.missedSectionChanges == 0 && f.flaps == 0)
    }

    @Test("an exit reported after the device truly came back is not the report of its leaving")
    func exitAfterReturn() {
        // Out for 10 s at 100 s; the rule exits only at 150 s and re-enters at 155 s.
        let truths = [truth(0, 1, 1), truth(100, nil, nil), truth(110, 1, 1), truth(300, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(150, .exit, 1, 1), report(150, .exit, 1),
                       report(155, .enter, 1), report(155, .enter, 1, 1), report(300, .exit, 1, 1), report(300, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        #expect(r.missedExits == 1 && r.exitLatencies == [0], "\(r)")
        #expect(r.enterLatencies == [0, 45_000] && r.falseExits == 0, "\(r)")
    }

    @Test("reports after the end of the scored period do not count")
    func afterEnd() {
        let truths = [truth(0, 1, 1), truth(300, nil, nil)]
        // A flap and a false exit and enter at 250–260 s, after an end at 200 s.
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(250, .exit, 1, 1), report(250, .enter, 1, 2),
                       report(255, .exit, 1, 2), report(255, .exit, 1), report(260, .enter, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 200_000)
        #expect(r.flaps == 0 && r.falseExits == 0 && r.falseEnters == 0, "\(r)")
        #expect(r.sectionAccuracy == 1)
    }

    @Test("flaps: a return to the true section, back into the section just left, into one not visited")
    func flapsBack() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(300, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1),
                       report(101, .enter, 1, 2), report(110, .enter, 1, 1), report(120, .enter, 1, 2), report(200, .enter, 1, 3),
                       report(210, .enter, 1, 2), report(300, .exit, 1, 2), report(300, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        // 110 s: back into 1, left 10 s before; 120 s: into 2, where the device is (a correction);
        // 200 s: into 3, never visited; 210 s: into 2 again, a correction.
        #expect(r.sectionChangeLatencies == [1000] && r.flaps == 4 && r.flapsBack == 1 && r.flapReturns == 2, "\(r)")
        // Left more than 30 s before: not back across a boundary just crossed.
        let later = [report(0, .enter, 1), report(0, .enter, 1, 1), report(101, .enter, 1, 2), report(135, .enter, 1, 1),
                     report(140, .enter, 1, 2), report(300, .exit, 1, 2), report(300, .exit, 1)]
        let late = Evaluator.evaluate(truth: truths, reported: later, end: t0 + 600_000)
        #expect(late.flaps == 2 && late.flapsBack == 0 && late.flapReturns == 1, "\(late)")
    }

    @Test("an entry reported from the window, long before the crossing, is early: missed, false, and its lead kept")
    func earlyEntry() {
        // Outside from 0 s (at the window), in at 60 s; reported in at 10 s.
        let truths = [truth(0, nil, nil), truth(60, 1, 1), truth(300, nil, nil)]
        let reports = [report(10, .enter, 1), report(10, .enter, 1, 1), report(300, .exit, 1, 1), report(300, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        #expect(r.earlyEnterLeads == [50_000] && r.missedEnters == 1 && r.falseEnters == 1, "\(r)")
        // 5 s before the crossing is within the matching window: an entry, not an early one.
        let soon = Evaluator.evaluate(
            truth: truths, reported: [report(55, .enter, 1), report(55, .enter, 1, 1)] + reports.dropFirst(2), end: t0 + 600_000)
        #expect(soon.earlyEnterLeads.isEmpty && soon.enterLatencies == [-5000] && soon.missedEnters == 0, "\(soon)")
    }

    @Test("an entry reported while the truth was unscored is not early: it may have been right then")
    func earlyEntryAfterUnscored() {
        let truths = [truth(0, nil, nil), TruthChange(time: t0 + 5_000, device: dev, place: .unscored), truth(40, nil, nil),
                      truth(60, 1, 1), truth(300, nil, nil)]
        let reports = [report(10, .enter, 1), report(10, .enter, 1, 1), report(300, .exit, 1, 1), report(300, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        #expect(r.earlyEnterLeads.isEmpty && r.missedEnters == 1, "\(r)")
    }

    @Test("a device never reported out is not entered early when it comes back: its exit was missed")
    func missedExitIsNotEarlyEntry() {
        let truths = [truth(0, 1, 1), truth(100, nil, nil), truth(200, 1, 1), truth(400, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(400, .exit, 1, 1), report(400, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 700_000)
        #expect(r.missedExits == 1 && r.missedEnters == 1 && r.earlyEnterLeads.isEmpty, "\(r)")
    }

    @Test("percentiles use the nearest rank")
    func percentiles() {
        #expect(EvaluationReport.percentile([1000, 2000, 3000, 4000], 50) == 2)
        #expect(EvaluationReport.percentile([1000, 2000, 3000, 4000], 95) == 4)
        #expect(EvaluationReport.percentile([], 50) == nil)
    }
}
