import Foundation
import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconSim
import BeaconWire

/// `beacon-sim evaluate`: scores the aggregator's events against the ground truth.
struct Evaluate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Score aggregator events against the ground truth; print the table.",
        discussion: """
            EVENTS is a 'topic payload' file: a mosquitto_sub -v recording of beaconnet/events/# or beacon-aggregator replay output. \
            A truth or events file that cannot be read, has a bad line, or holds no event at all exits 65. \
            With --truth-itself instead of --events, the row is the truth's own: what a rule that is never wrong scores.
            """)

    @Option(help: "Ground truth: written by beacon-sim run or import, or by hand (docs/TRUTH.md).")
    var truth: String

    @Option(help: "The aggregator's events ('topic payload' lines); or --truth-itself.")
    var events: String?

    @Option(help: "Instead of --events, score a rule that knows the truth and reports each change of section this many seconds late, if the device is still there (0: at once; at most 30, the latest a report is matched): right all the time, though the sections it reports a device passing through count as enters.")
    var truthItself: Double?

    @Flag(help: "With --truth-itself: leave out the sections the device stays in for under 5 s, as a rule that foresees which stays will last would.")
    var withoutPasses = false

    @Option(help: "Row label (default: beaconnet; with --truth-itself, truth, truth+3s, truth-no-passes…).")
    var label: String?

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    @Option(help: "End of the scored period, Unix ms (default: the simulation's end as the truth file records it; for an older truth file, the last truth or event time).")
    var end: Int64?

    @Flag(help: "Print the row only (to add rows under an earlier table).")
    var noHeader = false

    @Flag(help: "Add columns: reported section enters (changes, not a visit's first section) per true section change, the true section changes scored, the flaps that return or go back, the store entries reported early and their median lead (docs/TRUTH.md).")
    var wide = false

    @Flag(help: "Then print how often a section enter was right, by the confidence the event claimed (is the confidence a probability?).")
    var confidence = false

    /// Unix ms from 2000 to 2100: any time this tool can score (a typo's 19-digit number would trap).
    static let plausibleTimes = TruthFile.plausibleTimes
    /// The latest a section change may be reported and still be matched, s.
    static let latestTruthItself = Double(Evaluator.lateWindow / 1000)

    func validate() throws {
        switch (events, truthItself) {
        case (nil, nil): throw ValidationError("give --events (the aggregator's output) or --truth-itself SECONDS")
        case (_?, _?): throw ValidationError("give --events or --truth-itself, not both")
        case (nil, let seconds?) where !(0...Self.latestTruthItself).contains(seconds):
            throw ValidationError("--truth-itself \(seconds): seconds from 0 to \(Int(Self.latestTruthItself)) (a report later than that is matched to no change)")
        case (_?, nil) where withoutPasses: throw ValidationError("--without-passes goes with --truth-itself")
        case (nil, _?) where confidence: throw ValidationError("--confidence scores the confidence events claim; the truth itself claims none")
        default: break
        }
        if let end, !Self.plausibleTimes.contains(end) { throw ValidationError("--end \(end) is not a Unix ms time between 2000 and 2100") }
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
    }

    func run() throws {
        let truths: [TruthChange], simulated: Int64?, reported: [ReportedTransition], last: Int64
        // Said with the flag that named the file, before a reader says it without.
        for (path, flag) in [(truth, "--truth")] + (events.map { [($0, "--events")] } ?? []) where !FileManager.default.isReadableFile(atPath: path) {
            throw ExitCode(.dataError, saying: FileProblem.cannotRead(path, flag: flag))
        }
        do {
            (truths, simulated) = try TruthFile.readWithEnd(path: truth)
        } catch {
            throw ExitCode(.dataError, saying: FileProblem.isFileSystemError(error) ? FileProblem.cannotRead(truth, flag: "--truth") : "\(error)")
        }
        guard let events else {
            let end = end ?? simulated ?? (truths.map(\.time).max() ?? 0)
            let seconds = truthItself ?? 0, delay = Int64((seconds * 1000).rounded())
            let late = delay == 0 ? "" : String(format: "+%gs", Double(delay) / 1000)
            score(truths: truths, reported: TruthAsReports.reports(truths, sectionDelay: delay, passes: !withoutPasses, end: end), end: end,
                  label: label ?? "truth\(late)\(withoutPasses ? "-no-passes" : "")")
            return
        }
        do {
            (reported, last) = try TruthFile.readEvents(path: events, scheme: try TopicScheme(root: topicRoot))
        } catch {
            throw ExitCode(.dataError, saying: FileProblem.isFileSystemError(error) ? FileProblem.cannotRead(events, flag: "--events") : "\(error)")
        }
        if last == .min && truths.contains(where: { $0.store != nil }) {
            // Scoring would say 0 % and count every truth as missed: the wrong file, not a bad run.
            throw ExitCode(.dataError, saying: "\(events) has no event or device state under \(topicRoot)/ (the sightings trace instead of the aggregator's output, or another --topic-root?)")
        }
        // Not the last event: after `replay --drain` that is the drain's exits, scored as
        // shoppers leaving the simulated stores after the simulation ended.
        let end = end ?? simulated ?? max(truths.map(\.time).max() ?? 0, last)
        score(truths: truths, reported: reported, end: end, label: label ?? "beaconnet")
    }

    /// Scores `reported` and prints the row (and the confidence table when asked).
    func score(truths: [TruthChange], reported: [ReportedTransition], end: Int64, label: String) {
        let report = Evaluator.evaluate(truth: truths, reported: reported, end: end)
        if !noHeader { print(wide ? Report.wideHeader : Report.header) }
        print(Report.row(label, report, wide: wide))
        if confidence {
            print("")
            report.confidence.lines.forEach { print($0) }
        }
    }
}
