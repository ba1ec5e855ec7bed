import ArgumentParser
import BeaconAggregator
import BeaconCommandLine
import BeaconCore
import BeaconEngine
import BeaconSim
import BeaconWire
import Foundation

/// `beacon-aggregator calibrate --config chain.json --truth walk.jsonl TRACE…`: learns the
/// fingerprints of the stores a known tag was walked through (what each gateway hears, and how
/// often, in each section) from the walk's traces and its truth, writes the calibration file the
/// chain's `calibration` key names, and says how much it improves the fit (docs/CALIBRATION.md).
struct Calibrate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Learn section fingerprints from a recorded walk of a known tag; write the calibration file.",
        discussion: """
            Record the walk with: mosquitto_sub -v -t 'beaconnet/sightings/#' > walk.txt, and write its truth by hand \
            (docs/TRUTH.md). The chain's own calibration file, if any, is not read: a walk replaces it. \
            Then name the file in the chain's "calibration" key, set "rule": "fingerprint" in its tuning, and run check-config.
            A bad chain exits 78; a truth or trace that cannot be read, is damaged (as replay says) or does not fit the chain and the walk, 65.
            """)

    @Option(help: "The chain config (JSON).")
    var config: String

    @Option(help: "The walk's ground truth (docs/TRUTH.md): which section the tag was in, and when.")
    var truth: String

    @Option(help: "The walk's tag, as the aggregator names it (default: the one device the truth names).")
    var device: String?

    @Option(help: "Where to write the calibration file.")
    var output = "calibration.json"

    @Option(help: "Topic root of the traces.")
    var topicRoot = "beaconnet"

    @Argument(help: "The walk's traces ('topic payload' lines, as mosquitto_sub -v writes them); several recordings of one site give held-out figures.")
    var traces: [String] = []

    func validate() throws {
        guard !traces.isEmpty else { throw ValidationError("give the walk's trace(s): beacon-aggregator calibrate --config chain.json --truth walk.jsonl walk.txt") }
        if let device, (try? DeviceID(device)) == nil {
            throw ValidationError("--device \(device) is not a device id (ib-…, eu-…, ab-…, mac-…)")
        }
    }

    func run() throws {
        do {
            try calibrate()
        } catch let error as ValidationError {
            throw error
        } catch let error as ConfigError {
            throw ExitCode(.configError, saying: "\(error)")
        } catch {
            // The truth, the traces, or a walk that does not fit the chain: the input data.
            throw ExitCode(.dataError, saying: "\(error)")
        }
    }

    func calibrate() throws {
        // The chain only: the calibration it names may be the one this walk replaces, no longer
        // fitting a changed chain.
        let contents: [UInt8]
        do {
            contents = try ConfigFile.read(config)
        } catch {
            throw ConfigError(file: config, issues: [ConfigIssue(path: "$", message: "cannot read the file: \(error.reason)")])
        }
        var chainConfig = try ChainConfig.load(contents: contents, file: config)
        chainConfig.calibrationFile = nil
        let chain = try WalkCalibration.uncalibrated(chainConfig).resolve()
        let scheme: TopicScheme
        do { scheme = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }

        let (lines, end) = try TruthFile.readNumbered(path: truth)
        let tag = try WalkCalibration.device(named: device, truth: lines, file: truth)
        try WalkCalibration.checkTruth(lines, file: truth, device: tag, chain: chain)
        let (batches, parts) = try readTraces(scheme: scheme)
        guard batches.contains(where: { $0.sightings.contains { $0.device == tag } }) else {
            throw CalibrationError(reason: "the traces (\(traces.joined(separator: ", "))) carry no sighting of \(tag): another tag, or another --topic-root?")
        }
        let changes = lines.map(\.change).filter { $0.device == tag }
        let last = max(batches.last?.sent ?? .min, changes.map(\.time).max() ?? .min)
        let recording = Recording(batches: batches, truth: changes, end: end ?? last)
        let samples = WalkSampler.samples(chain: chain, recording: recording, device: tag)
        guard samples.contains(where: { $0.section != nil }) else {
            let inside = changes.filter { $0.section != nil }.map(\.time)
            throw CalibrationError(file: truth, reason: "no scored sample of \(tag): the truth puts it in a section from \(Self.time(inside.min())) to \(Self.time(end ?? changes.map(\.time).max())), the traces run from \(Self.time(batches.first?.sent)) to \(Self.time(batches.last?.sent)); do they overlap?")
        }
        let comment = "Learnt by beacon-aggregator calibrate from the walk of \(tag) in \(truth) (\(traces.joined(separator: ", "))): \(samples.count) samples of \(WalkSampler.interval) ms, \(Self.time(samples.first?.time)) to \(Self.time(samples.last?.time))."
        let learnt = WalkCalibration.learn(chain: chain, samples: samples, comment: comment)
        let (calibration, kept) = try merged(learnt)
        do {
            try calibration.fileText().write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            throw ValidationError(FileProblem.cannotWrite(output, flag: "--output"))
        }
        let stores = learnt.stores.map { "\($0.major)" }.joined(separator: ", ")
        let outside = learnt.stores.filter { $0.outside != nil }.map { "\($0.major)" }.joined(separator: ", ")
        print("\(output): fingerprints for store(s) \(stores)\(outside.isEmpty ? "" : " (outside too: \(outside))") from \(samples.count) samples (\(String(format: "%.1f", Double(samples.count) * 0.5 / 60)) min) of \(tag)")
        if !kept.isEmpty { print("\(output): kept the fingerprints of store(s) \(kept.map(String.init).joined(separator: ", ")) it already had") }
        let assessment = try CalibrationAssessment.assess(
            config: chainConfig, recording: recording, device: tag, samples: samples, calibration: learnt, parts: parts)
        assessment.lines().forEach { print($0) }
        print("next: in \(config) set \"calibration\": \"\(reference())\" and, under \"tuning\", \"rule\": \"fingerprint\"; then beacon-aggregator check-config \(config)")
    }

    /// `learnt` with the stores the output file already calibrates and this walk did not: a chain
    /// is calibrated one store (one walk) at a time into one file. Also returns the stores kept.
    func merged(_ learnt: Calibration) throws -> (calibration: Calibration, kept: [Int]) {
        guard FileManager.default.fileExists(atPath: output) else { return (learnt, []) }
        let existing: Calibration
        do {
            existing = try Calibration.parse(try ConfigFile.read(output))
        } catch let error as ConfigError {
            var located = error
            located.file = output
            throw CalibrationError(file: output, reason: "is there, and is not a calibration to add this walk's stores to (remove it, or choose another --output):\n\(located)")
        } catch {
            throw CalibrationError(file: output, reason: "is there, and cannot be read to add this walk's stores to: \(error)")
        }
        let walked = Set(learnt.stores.map(\.major))
        let kept = existing.stores.filter { !walked.contains($0.major) }
        var calibration = learnt
        calibration.stores = (kept + learnt.stores).sorted { $0.major < $1.major }
        if !kept.isEmpty, let comment = learnt.comment {
            calibration.comment = comment + " Stores \(kept.map { "\($0.major)" }.joined(separator: ", ")) kept from the file's previous contents."
        }
        return (calibration, kept.map(\.major))
    }

    /// Every sightings batch of the traces, in `sent` order, and each trace's span. A sightings
    /// line whose batch does not decode is reported with its file and line, and skipped, as
    /// `replay` refuses it; a trace that `replay` calls damaged — lines that are not
    /// `topic payload`, a last line cut off mid-message — is refused, as no calibration should be
    /// learnt from part of a walk.
    func readTraces(scheme: TopicScheme) throws -> (batches: [SimulatedBatch], parts: [ClosedRange<Int64>]) {
        var batches: [SimulatedBatch] = []
        var parts: [ClosedRange<Int64>] = []
        for path in traces {
            let mine = try readTrace(path, scheme: scheme)
            guard let first = mine.map(\.sent).min(), let last = mine.map(\.sent).max() else {
                throw CalibrationError(file: path, reason: "no sightings batch under \(topicRoot)/sightings/: the aggregator's output instead of the edges', or another --topic-root?")
            }
            parts.append(first...last)
            batches += mine
        }
        // Stable: each gateway's batches stay in their recorded order.
        let ordered = batches.enumerated().sorted { ($0.element.sent, $0.offset) < ($1.element.sent, $1.offset) }.map(\.element)
        return (ordered, parts)
    }

    /// The sightings batches of the trace at `path`, in file order; throws for a damaged trace.
    func readTrace(_ path: String, scheme: TopicScheme) throws -> [SimulatedBatch] {
        var reader = try TraceReader(path: path)
        var batches: [SimulatedBatch] = []
        var badLines = 0
        var cutOffLine: Int?
        while let line = reader.next() {
            switch line {
            case .failure(let error):
                badLines += 1
                StandardError.write("\(path): \(error)\n")
            case .success(let line):
                do {
                    if let batch = try TraceBatch.batch(topic: line.topic, payload: line.payload, scheme: scheme) { batches.append(batch) }
                } catch {
                    if reader.endsMidLine { cutOffLine = reader.lineNumber }
                    StandardError.write("\(path):\(reader.lineNumber): \(error.reason); skipped\n")
                }
            }
        }
        if let error = reader.readError { throw CalibrationError(file: path, reason: "\(error)") }
        var damage: [String] = []
        if badLines > 0 { damage.append("has \(badLines) line(s) that are not 'topic payload'") }
        if let cutOffLine { damage.append("ends mid-message: line \(cutOffLine) has no line end and does not decode (cut off while recorded or copied?)") }
        guard damage.isEmpty else {
            throw CalibrationError(file: path, reason: damage.joined(separator: " and ") + "; a walk is learnt from whole traces only, as replay reads them")
        }
        return batches
    }

    /// What the chain's `calibration` key should say: the output's path relative to the chain
    /// file's folder when it lies there, else its absolute path.
    func reference() -> String {
        let out = URL(fileURLWithPath: output).standardizedFileURL
        let folder = URL(fileURLWithPath: config).standardizedFileURL.deletingLastPathComponent()
        return out.deletingLastPathComponent().path == folder.path ? out.lastPathComponent : out.path
    }

    /// A Unix ms time as ISO-8601 UTC, `-` for none.
    static func time(_ milliseconds: Int64?) -> String {
        guard let milliseconds else { return "-" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
