import BeaconCore
import Foundation
import TestSupport
import Testing
@testable import BeaconSim

/// Unscored spans in the truth (docs/TRUTH.md): time nobody scores, changes into and out of them
/// that nobody can ask a rule to detect. Each case also scores the same reports with the span
/// taken for "outside", to show the case tells the two apart.
@Suite("Evaluator: unscored spans and section enters")
struct UnscoredTruthTests: OneDeviceTimeline {
    /// The same truth with every unscored span read as outside, as a truth file without the marker would be.
    func asOutside(_ truths: [TruthChange]) -> [TruthChange] {
        truths.map { $0.place == .unscored ? TruthChange(time: $0.time, device: $0.device, store: nil, section: nil) : $0 }
    }

    @Test("a gap is not scored: no missed exit or entry across it, no flap or false exit in it, its time not in store")
    func gap() {
        let truths = [truth(0, 1, 1), unscored(100), truth(200, 1, 2), truth(300, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1),
                       // in the gap: a flap and back, a false exit and re-entry
                       report(120, .exit, 1, 1), report(120, .enter, 1, 3), report(130, .exit, 1, 3), report(130, .enter, 1, 1),
                       report(150, .exit, 1, 1), report(150, .exit, 1), report(160, .enter, 1), report(160, .enter, 1, 1),
                       // after it, catching up with the section the truth resumes in
                       report(202, .exit, 1, 1), report(202, .enter, 1, 2),
                       report(300, .exit, 1, 2), report(300, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        #expect(r.missedEnters == 0 && r.missedExits == 0 && r.missedSectionChanges == 0, "\(r)")
        #expect(r.falseEnters == 0 && r.falseExits == 0 && r.flaps == 0, "\(r)")
        #expect(r.sectionChangeLatencies.isEmpty && r.sectionEnters == 0, "a change across a gap is no change to detect or count")
        #expect(r.enterLatencies == [0] && r.exitLatencies == [0])
        #expect(abs(r.deviceHours - 200.0 / 3600) < 1e-9)
        // 200 s scored in store, 2 s of them in the old section after the gap.
        #expect(abs(r.sectionAccuracy - 198.0 / 200) < 1e-9)
        // The place is known again at the gap's end: its first 3 s settle, like those after a change.
        #expect(abs(r.settlingShare - 6.0 / 200) < 1e-9)

        let outside = Evaluator.evaluate(truth: asOutside(truths), reported: reports, end: t0 + 600_000)
        #expect(outside.missedEnters + outside.falseEnters + outside.falseExits + outside.flaps > 0, "\(outside)")
    }

    @Test("a report catching up after a gap is not false; a false exit later on still is")
    func catchUp() {
        // In store before the gap, outside after it: the exit reported 40 s after the gap's start
        // catches up. Back in store at 400 s: an exit at 500 s and a re-entry are false.
        let truths = [truth(0, 1, 1), unscored(100), truth(130, nil, nil), truth(400, 1, 1), truth(700, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(140, .exit, 1, 1), report(140, .exit, 1),
                       report(401, .enter, 1), report(401, .enter, 1, 1),
                       report(500, .exit, 1, 1), report(500, .exit, 1), report(510, .enter, 1), report(510, .enter, 1, 1),
                       report(701, .exit, 1, 1), report(701, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 1_000_000)
        #expect(r.falseExits == 1 && r.falseEnters == 1, "\(r)")
        #expect(r.exitLatencies == [1000] && r.enterLatencies == [0, 1000] && r.missedExits == 0, "\(r)")
        let outside = Evaluator.evaluate(truth: asOutside(truths), reported: reports, end: t0 + 1_000_000)
        #expect(outside.exitLatencies.contains(40_000), "read as outside, the catch-up is an exit 40 s late: \(outside)")
    }

    @Test("a report just before an unscored span starts is not charged (it may be early for a change made in it)")
    func justBefore() {
        let truths = [truth(0, 1, 1), unscored(100), truth(300, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1), report(97, .exit, 1, 1), report(97, .enter, 1, 2),
                       report(95, .exit, 1, 2), report(95, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports.sorted { $0.time < $1.time }, end: t0 + 600_000)
        #expect(r.flaps == 0 && r.falseExits == 0 && r.missedExits == 0, "\(r)")
    }

    @Test("unscored throughout (a walk without a timed truth): nothing scored, nothing charged")
    func unscoredThroughout() {
        let truths = [unscored(0)]
        let reports = [report(1, .enter, 1), report(1, .enter, 1, 1), report(30, .exit, 1, 1), report(30, .enter, 1, 2),
                       report(40, .exit, 1, 2), report(40, .enter, 1, 1), report(200, .exit, 1, 1), report(200, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 300_000)
        #expect(r == EvaluationReport(), "\(r)")
        let outside = Evaluator.evaluate(truth: asOutside(truths), reported: reports, end: t0 + 300_000)
        #expect(outside.falseEnters == 1 && outside.falseExits == 1)
    }

    @Test("section enters per true change: every reported change of section counts, a visit's first section does not")
    func sectionEnters() {
        let truths = [truth(0, 1, 1), truth(100, 1, 2), truth(200, 1, 3), truth(300, nil, nil)]
        let reports = [report(0, .enter, 1), report(0, .enter, 1, 1),
                       report(102, .exit, 1, 1), report(102, .enter, 1, 2),
                       report(150, .exit, 1, 2), report(150, .enter, 1, 1), report(155, .exit, 1, 1), report(155, .enter, 1, 2),
                       report(202, .exit, 1, 2), report(202, .enter, 1, 3), report(300, .exit, 1, 3), report(300, .exit, 1)]
        let r = Evaluator.evaluate(truth: truths, reported: reports, end: t0 + 600_000)
        #expect(r.trueSectionChanges == 2 && r.sectionEnters == 4 && r.flaps == 2, "\(r)")
        #expect(r.sectionEntersPerTrueChange == 2)
        #expect(EvaluationReport().sectionEntersPerTrueChange == nil)
    }

    @Test("the wide table adds the six columns after the standard eleven")
    func wideRow() {
        var r = EvaluationReport()
        r.sectionEnters = 3
        r.sectionChangeLatencies = [1000, 2000]
        r.flapReturns = 5
        r.flapsBack = 7
        r.earlyEnterLeads = [40_000, 12_000, 50_000]
        let columns = Report.row("x", r, wide: true).split(whereSeparator: \.isWhitespace)
        #expect(columns.count == 17 && columns[11] == "1.50" && columns[12] == "2" && columns[13] == "5" && columns[14] == "7")
        #expect(columns[15] == "3" && columns[16] == "40.0")
        #expect(Report.wideHeader.split(separator: "  ").filter { !$0.isEmpty }.count == 17)
        #expect(Report.row("x", EvaluationReport(), wide: true).hasSuffix("  0           -"))
        #expect(Report.row("x", r).split(whereSeparator: \.isWhitespace).count == 11)
        #expect(Report.wideHeader.hasPrefix(Report.header))
    }

    @Test("truth files: unscored lines, ISO-8601 times, comments; round trip through line(_:)")
    func truthFile() throws {
        let directory = try TestDirectory.make("truth-unscored")
        let path = directory.appendingPathComponent("walk.jsonl").path
        let text = """
            # a walk written by hand
            {"t":"2021-08-03T10:02:15Z","dev":"\(dev)","major":1,"minor":3}
            {"t":"2021-08-03T10:02:40.2Z","dev":"\(dev)","unscored":true}

            {"t":"2021-08-03T12:02:41+02:00","dev":"\(dev)","major":null,"minor":null}
            {"t":1627985000000,"end":true}
            """
        try text.write(toFile: path, atomically: false, encoding: .utf8)
        let (changes, end) = try TruthFile.readWithEnd(path: path)
        #expect(changes.map(\.time) == [1_627_984_935_000, 1_627_984_960_200, 1_627_984_961_000])
        #expect(changes.map(\.place) == [.inside(store: 1, section: 3), .unscored, .outside])
        #expect(end == 1_627_985_000_000)
        let written = directory.appendingPathComponent("written.jsonl").path
        try changes.map(TruthFile.line).joined(separator: "\n").write(toFile: written, atomically: false, encoding: .utf8)
        #expect(try TruthFile.read(path: written) == changes)
    }

    @Test("truth files: bad lines are refused with their line number", arguments: [
        (#"{"t":1627984935000,"dev":"mac-00:00:00:00:00:01","unscored":true,"major":1}"#, "names no store"),
        (#"{"t":"2021-08-03T10:02:15","dev":"mac-00:00:00:00:00:01","major":1,"minor":3}"#, "ISO-8601 time with a zone"),
        (#"{"t":1627984935000,"dev":"mac-00:00:00:00:00:01","major":1,"minor":70000}"#, "\"minor\""),
        (#"{"t":1627984935000,"dev":"mac-00:00:00:00:00:01","major":null,"minor":2}"#, "without its store"),
        (#"{"t":1627984935000,"major":1,"minor":2}"#, "no \"dev\""),
        (#"not json"#, "not a JSON object"),
    ])
    func badLines(_ line: String, _ reason: String) throws {
        let path = try TestDirectory.make("truth-bad").appendingPathComponent("truth.jsonl").path
        let good = #"{"t":1627984930000,"dev":"mac-00:00:00:00:00:01","major":1,"minor":2}"#
        try ("# comment\n" + good + "\n" + line + "\n").write(toFile: path, atomically: false, encoding: .utf8)
        #expect { _ = try TruthFile.read(path: path) } throws: { "\($0)".contains(":3:") && "\($0)".contains(reason) }
    }
}
