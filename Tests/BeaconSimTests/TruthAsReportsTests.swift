import Testing
import BeaconCore
import BeaconEngine
@testable import BeaconSim

@Suite("The truth itself scored as a rule's reports")
struct TruthAsReportsTests: OneDeviceTimeline {
    /// In at section 1, 2 s passing through section 2, on to section 3, out at 200 s.
    var passing: [TruthChange] { [truth(0, 1, 1), truth(100, 1, 2), truth(102, 1, 3), truth(200, nil, nil)] }

    @Test("at once: all right, nothing unexplained, and a room passed through counts as a section enter")
    func atOnce() {
        let end = t0 + 400_000
        let r = Evaluator.evaluate(truth: passing, reported: TruthAsReports.reports(passing, end: end), end: end)
        #expect(r.sectionAccuracy == 1 && r.storeAccuracy == 1)
        #expect(r.flaps == 0 && r.falseEnters == 0 && r.falseExits == 0)
        #expect(r.missedEnters == 0 && r.missedExits == 0 && r.missedSectionChanges == 0)
        // Two enters (2, then 3) for the one change that lasts: a rule right all the time makes 2 here.
        #expect(r.trueSectionChanges == 1 && r.sectionEnters == 2)
        #expect(r.sectionChangeLatencies == [0])
    }

    @Test("3 s late: the pass is not reported, the change is 3 s late, the wrong time is exactly the delay")
    func late() {
        let end = t0 + 400_000
        let reports = TruthAsReports.reports(passing, sectionDelay: 3000, end: end)
        #expect(!reports.contains { $0.section == 2 })
        let r = Evaluator.evaluate(truth: passing, reported: reports, end: end)
        #expect(r.trueSectionChanges == 1 && r.sectionEnters == 1 && r.flaps == 0)
        #expect(r.sectionChangeLatencies == [3000])
        // 200 s inside: section 1 reported through the 2 s in section 2 and the first 3 s in 3.
        #expect(abs(r.sectionAccuracy - 195.0 / 200) < 1e-9)
        #expect(r.storeAccuracy == 1)
    }

    @Test("without passes: the pass is left out and the lasting change reported at once")
    func withoutPasses() {
        let end = t0 + 400_000
        let reports = TruthAsReports.reports(passing, passes: false, end: end)
        #expect(!reports.contains { $0.section == 2 })
        let r = Evaluator.evaluate(truth: passing, reported: reports, end: end)
        #expect(r.trueSectionChanges == 1 && r.sectionEnters == 1 && r.flaps == 0)
        #expect(r.sectionChangeLatencies == [0])
        // Wrong only for the 2 s spent passing through section 2.
        #expect(abs(r.sectionAccuracy - 198.0 / 200) < 1e-9)
    }

    @Test("a stay of exactly the delay has ended when the delay is up: not reported")
    func stayOfExactlyTheDelay() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(103, 1, 3), truth(200, nil, nil)]
        let reports = TruthAsReports.reports(truths, sectionDelay: 3000, end: t0 + 400_000)
        #expect(reports.filter { $0.kind == .enter && $0.section != nil }.map(\.section) == [1, 3])
    }

    @Test("back in the reported section before the delay is up: nothing to report")
    func returnWhilePending() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(102, 1, 1), truth(200, nil, nil)]
        let reports = TruthAsReports.reports(truths, sectionDelay: 3000, end: t0 + 400_000)
        #expect(reports.map(\.section) == [nil, 1, 1, nil], "the visit's entry and exit only")
    }

    @Test("in the store with no section named: the old section is left, then the next one entered")
    func noSectionNamed() {
        let truths = [truth(0, 1, 1), truth(100, 1, nil), truth(150, 1, 2), truth(200, nil, nil)]
        let end = t0 + 400_000
        let reports = TruthAsReports.reports(truths, end: end)
        #expect(reports.map { "\($0.kind)\($0.section.map(String.init) ?? "")@\(($0.time - t0) / 1000)" }
            == ["enter@0", "enter1@0", "exit1@100", "enter2@150", "exit2@200", "exit@200"])
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: end)
        #expect(r.sectionAccuracy == 1 && r.flaps == 0)
    }

    @Test("straight from one store into another: an exit from the first and an entry into the second, together")
    func storeToStore() {
        let truths = [truth(0, 1, 1), truth(100, 2, 5), truth(200, nil, nil)]
        let end = t0 + 400_000
        let reports = TruthAsReports.reports(truths, sectionDelay: 3000, end: end)
        let at100 = reports.filter { $0.time == t0 + 100_000 }.map { "\($0.kind)\($0.store)/\($0.section.map(String.init) ?? "")" }
        #expect(at100 == ["exit1/1", "exit1/", "enter2/", "enter2/5"])
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: end)
        #expect(r.sectionAccuracy == 1 && r.missedEnters == 0 && r.missedExits == 0 && r.falseEnters == 0 && r.falseExits == 0)
    }

    @Test("unscored: the rule keeps what it said; another store after it is an exit and an entry when the truth resumes")
    func unscoredSpan() {
        let truths = [truth(0, 1, 1), unscored(50), truth(80, 2, 4), truth(150, nil, nil)]
        let reports = TruthAsReports.reports(truths, end: t0 + 400_000)
        let storeReports = reports.filter { $0.section == nil }.map { ($0.time - t0, $0.kind, $0.store) }
        #expect(storeReports.map(\.0) == [0, 80_000, 80_000, 150_000])
        #expect(storeReports.map(\.1) == [.enter, .exit, .enter, .exit])
        #expect(storeReports.map(\.2) == [1, 1, 2, 2])
        #expect(reports.map(\.sequence) == reports.indices.map { UInt64($0 + 1) }, "one device's sequence, in order")
    }

    @Test("on a simulated run: a rule that knows the truth scores 100 %, misses nothing, charges nothing")
    func simulatedRun() throws {
        var config = SimulationConfig()
        config.seed = 11
        config.duration = 180
        var simulation = try Simulation(chain: try DefaultChain.config().resolve(), config: config)
        var truth: [TruthChange] = []
        for _ in 0..<Int(config.duration / config.batchWindow) { truth += simulation.nextWindow().truth }
        let r = Evaluator.evaluate(truth: truth, reported: TruthAsReports.reports(truth, end: simulation.now), end: simulation.now)
        #expect(r.trueSectionChanges > 20, "a run with changes to score")
        #expect(r.sectionAccuracy == 1 && r.storeAccuracy == 1)
        #expect(r.flaps == 0 && r.falseEnters == 0 && r.falseExits == 0)
        #expect(r.missedEnters == 0 && r.missedExits == 0 && r.missedSectionChanges == 0)
        #expect(r.sectionEnters >= r.trueSectionChanges)
    }
}
