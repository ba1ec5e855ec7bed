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
            Then name the file in the chain's "calibration" key, set "rule": "fingerprint" in its tuning, and run check-config. \
            Only the stores whose calibration is better held out — for the tag that walked and for other phones, heard \
            louder and quieter — are written; the others keep the chain's rule (--write-all writes them too). \
            Several walks (several traces, several --truth files) and several tags (--device, once per tag) may be given: \
            with two tags or more, each tag's walk is scored on the fingerprints learnt from the others'. \
            A recording of the stores' ordinary traffic (--traffic) says how much louder than the tag their phones are: \
            the walk is then scored as those phones, and the figure written for the rule; and the traffic is replayed with \
            both rules: a store whose phones the calibration moves between sections more often than chance explains keeps \
            the chain's rule.
            A bad chain exits 78; a truth or trace that cannot be read, is damaged (as replay says) or does not fit the chain and the walk, 65.
            """)

    @Option(help: "The chain config (JSON).")
    var config: String

    @Option(help: "The walk's ground truth (docs/TRUTH.md): which section the tag was in, and when; once per truth file.")
    var truth: [String] = []

    @Option(help: "The walk's tag, as the aggregator names it; once per tag (default: the one device the truths name).")
    var device: [String] = []

    @Option(help: "A recording of the stores' ordinary traffic (as the traces, no truth): how loud their phones are against the tag is measured on it; once per recording.")
    var traffic: [String] = []

    @Flag(help: "Write every store's fingerprints, also those not better held out than the chain's rule.")
    var writeAll = false

    @Option(help: "Where to write the calibration file.")
    var output = "calibration.json"

    @Option(help: "Topic root of the traces.")
    var topicRoot = "beaconnet"

    @Argument(help: "The walk's traces ('topic payload' lines, as mosquitto_sub -v writes them); several recordings of one site give held-out figures.")
    var traces: [String] = []

    func validate() throws {
        guard !traces.isEmpty else { throw ValidationError("give the walk's trace(s): beacon-aggregator calibrate --config chain.json --truth walk.jsonl walk.txt") }
        guard !truth.isEmpty else { throw ValidationError("give the walk's truth: --truth walk.jsonl (docs/TRUTH.md)") }
        for device in device where (try? DeviceID(device)) == nil {
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

        let walks = try readWalks(chain: chain)
        let (batches, parts) = try readTraces(scheme: scheme)
        for tag in walks.tags where !batches.contains(where: { $0.sightings.contains { $0.device == tag } }) {
            throw CalibrationError(reason: "the traces (\(traces.joined(separator: ", "))) carry no sighting of \(tag): another tag, or another --topic-root?")
        }
        let changes = walks.changes
        let last = max(batches.last?.sent ?? .min, changes.map(\.time).max() ?? .min)
        let recording = Recording(batches: batches, truth: changes, end: walks.end ?? last)
        var sampled: [(device: DeviceID, samples: [WalkSample])] = []
        for tag in walks.tags {
            let samples = WalkSampler.samples(chain: chain, recording: recording, device: tag)
            guard samples.contains(where: { $0.section != nil }) else {
                let inside = changes.filter { $0.device == tag && $0.section != nil }.map(\.time)
                throw CalibrationError(file: truth.joined(separator: ", "), reason: "no scored sample of \(tag): the truth puts it in a section from \(Self.time(inside.min())) to \(Self.time(walks.end ?? changes.map(\.time).max())), the traces run from \(Self.time(batches.first?.sent)) to \(Self.time(batches.last?.sent)); do they overlap?")
            }
            sampled.append((tag, samples))
        }
        let samples = sampled.flatMap(\.samples)
        let names = walks.tags.map(\.rawValue).joined(separator: ", ")
        let comment = "Learnt by beacon-aggregator calibrate from the walk of \(names) in \(truth.joined(separator: ", ")) (\(traces.joined(separator: ", "))): \(samples.count) samples of \(WalkSampler.interval) ms, \(Self.time(samples.map(\.time).min())) to \(Self.time(samples.map(\.time).max()))."
        var learnt = WalkCalibration.learn(chain: chain, samples: samples, comment: comment)
        let trafficBatches = try readTraffic(scheme: scheme)
        let measured = measureTraffic(trafficBatches, chain: chain, walk: batches, truth: changes, tags: walks.tags, learnt: &learnt)
        let assessment = try CalibrationAssessment.assess(config: chainConfig, recording: recording, walks: sampled, calibration: learnt, parts: parts,
                                                          traffic: measured, trafficBatches: trafficBatches)
        let stores = learnt.stores.map { "\($0.major)" }.joined(separator: ", ")
        print("fingerprints learnt for store(s) \(stores) from \(samples.count) samples (\(String(format: "%.1f", Double(samples.count) * 0.5 / 60)) min) of \(names)")
        assessment.lines().forEach { print($0) }
        try write(learnt, switchingOn: writeAll ? learnt.stores.map { StoreNumber($0.major) } : assessment.storesToSwitchOn)
    }

    /// How loud each walked store's phones are against the tag, on the `--traffic` recordings
    /// (``TrafficLevels``), written into `learnt` as each store's `phones_offset_db`; a store with
    /// too little traffic to tell is named, and keeps none.
    func measureTraffic(_ batches: [SimulatedBatch], chain: Chain, walk: [SimulatedBatch], truth: [TruthChange], tags: [DeviceID],
                        learnt: inout Calibration) -> [TrafficLevels.StoreOffset] {
        guard !batches.isEmpty else { return [] }
        let powers = Dictionary(uniqueKeysWithValues: learnt.stores.compactMap { store in store.tagMeasuredPower.map { (StoreNumber(store.major), $0) } })
        let measured = TrafficLevels.measure(chain: chain, walk: walk, truth: truth, tags: tags, traffic: batches, tagPowers: powers,
                                             trusted: chain.tuning.trustedClaimDB)
        for i in learnt.stores.indices {
            let major = StoreNumber(learnt.stores[i].major)
            if let store = measured.first(where: { $0.major == major }) {
                guard Calibration.phonesOffsetRange.contains(store.offset) else {
                    print("note: store \(major): its phones are heard \(store.offset) dB against the tag, beyond the \(Calibration.phonesOffsetRange) dB a calibration holds: the tag is not a phone-like radio; phones_offset_db is not written, and the store learns its phones' level once switched on")
                    continue
                }
                learnt.stores[i].phonesOffset = store.offset
            } else {
                print("note: store \(major): too little traffic in \(traffic.joined(separator: ", ")) to measure its phones against the tag (at least \(TrafficLevels.minimumPhones) phones, and \(TrafficLevels.minimumGateways) gateways each the strongest for \(TrafficLevels.minimumSeconds) s of the tag's walk and of the phones'); it learns it from its phones once switched on")
            }
        }
        return measured
    }

    /// Every sightings batch of the `--traffic` recordings, in `sent` order (each gateway's in its
    /// recorded order), read as the walk's traces are; a recording without one is refused.
    func readTraffic(scheme: TopicScheme) throws -> [SimulatedBatch] {
        var batches: [SimulatedBatch] = []
        for path in traffic {
            let mine = try readTrace(path, scheme: scheme)
            guard !mine.isEmpty else {
                throw CalibrationError(file: path, reason: "no sightings batch under \(topicRoot)/sightings/: --traffic takes what the edges published, as the walk's traces")
            }
            batches += mine
        }
        return Self.inSentOrder(batches)
    }

    /// Writes the stores of `learnt` in `stores` (merged with what the output file already has),
    /// and says what to do next; writes nothing when `stores` is empty: the chain keeps its rule.
    func write(_ learnt: Calibration, switchingOn stores: [StoreNumber]) throws {
        var chosen = learnt
        chosen.stores = learnt.stores.filter { stores.contains(StoreNumber($0.major)) }
        guard !chosen.stores.isEmpty else {
            print("no calibration written: no store's is better held out than the chain's rule; keep \(config) as it is (--write-all writes it anyway)")
            return
        }
        let (calibration, kept) = try merged(chosen)
        do {
            try calibration.fileText().write(toFile: output, atomically: true, encoding: .utf8)
        } catch {
            throw ValidationError(FileProblem.cannotWrite(output, flag: "--output"))
        }
        let written = chosen.stores.map { "\($0.major)" }.joined(separator: ", ")
        let outside = chosen.stores.filter { $0.outside != nil }.map { "\($0.major)" }.joined(separator: ", ")
        print("\(output): fingerprints for store(s) \(written)\(outside.isEmpty ? "" : " (outside too: \(outside))")")
        if !kept.isEmpty { print("\(output): kept the fingerprints of store(s) \(kept.map(String.init).joined(separator: ", ")) it already had") }
        print("next: in \(config) set \"calibration\": \"\(reference())\" and, under \"tuning\", \"rule\": \"fingerprint\"; then beacon-aggregator check-config \(config)")
    }

    /// The walks' truths, read from every `--truth` file: their changes, their end, and the tags
    /// (every `--device`, or the one device they name), each checked against the chain.
    func readWalks(chain: Chain) throws -> (tags: [DeviceID], changes: [TruthChange], end: Int64?) {
        var all: [(file: String, lines: [(line: Int, change: TruthChange)])] = []
        var end: Int64?
        for file in truth {
            let (lines, fileEnd) = try TruthFile.readNumbered(path: file)
            all.append((file, lines))
            if let fileEnd { end = max(end ?? fileEnd, fileEnd) }
        }
        let merged = all.flatMap(\.lines)
        let files = truth.joined(separator: ", ")
        let tags = try device.isEmpty ? [WalkCalibration.device(named: nil, truth: merged, file: files)]
            : device.map { try WalkCalibration.device(named: $0, truth: merged, file: files) }
        for (file, lines) in all {
            for tag in tags { try WalkCalibration.checkTruth(lines, file: file, device: tag, chain: chain) }
        }
        return (tags, merged.map(\.change).filter { tags.contains($0.device) }, end)
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
        return (Self.inSentOrder(batches), parts)
    }

    /// `batches` of several recordings in `sent` order; stable, so each gateway's batches stay in
    /// their recorded order.
    static func inSentOrder(_ batches: [SimulatedBatch]) -> [SimulatedBatch] {
        batches.enumerated().sorted { ($0.element.sent, $0.offset) < ($1.element.sent, $1.offset) }.map(\.element)
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
