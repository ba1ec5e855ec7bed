import ArgumentParser
import BeaconCommandLine
import BeaconCore
import BeaconEngine
import BeaconSim
import BeaconWire
import Foundation

/// `beacon-sim walk`: the calibration walk docs/CALIBRATION.md asks a person to make, simulated —
/// one tag through every section of each store twice, out of the street door and back — written
/// as the trace `mosquitto_sub` would have recorded and the truth the person would have written,
/// for `beacon-aggregator calibrate`.
struct Walk: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Simulate a calibration walk of one tag; write its trace and truth for beacon-aggregator calibrate.",
        discussion: """
            In each store, in the order given: in through the street door; every section, walking all over it for \
            --section-seconds; out of the door and along the shop front for --outside-seconds, and back in; every section \
            again in the other order; out and back in once more; then out and on to the next store. The truth leaves \
            --unscored-seconds unscored either side of each crossing, as a person with a watch would (0: the exact \
            crossings, so that calibrate can also score the walk's section changes and exits). The tag is ib-<site UUID>-1-<tag>; shoppers' phones are \
            ib-<site UUID>-<1000 and up>-…, staff badges mac-C0:FF:EE:… (docs/TRUTH.md).

            The same --seed (and --site-seed) and chain as a beacon-sim run give the same site: the same gateway gains \
            and shadowing, so the walk calibrates the stores that run's shoppers use. Then:
              beacon-aggregator calibrate --config chain.json --truth TRUTH --output calibration.json TRACE
            (with --shoppers, add --device ib-<site UUID>-1-<tag>). A --config that fails validation, or lacks the floor \
            polygons and gateway positions a simulation needs, exits 78.
            """)

    @Option(help: "Chain config with floor polygons (default: the generated 3 stores × 6 sections, as run and chain).")
    var config: String?

    @Option(help: "Write the sightings as 'topic payload' lines here.")
    var trace: String

    @Option(help: "Write the walk's truth (JSON lines, docs/TRUTH.md) here.")
    var truth: String

    @Option(help: "Stores to walk, in order (comma-separated majors; default: every store of the chain).")
    var stores: String?

    @Option(help: "The tag's number, 1…65535: its device id is ib-<site UUID>-1-<tag>.")
    var tag = 1

    @Option(parsing: .unconditional, help: "How much louder the tag is than the typical phone, dB (−30…30; negative: quieter, as in --tag-offset -6).")
    var tagOffset = 0.0

    @Option(help: "Seconds walking all over each section on each round (10…600).")
    var sectionSeconds = 60.0

    @Option(help: "Seconds outside the street door on each stay (10…600).")
    var outsideSeconds = 60.0

    @Option(help: "Seconds of the truth left unscored either side of each crossing (0…30; 0: the exact crossings).")
    var unscoredSeconds = 3.0

    @Flag(help: "Also simulate the shoppers and staff beacon-sim run simulates with the same seed, in the same trace and truth.")
    var shoppers = false

    @Option(help: "Random seed: the same seed gives the same walk.")
    var seed: UInt64 = 1

    @Option(help: "Event time of the start, Unix ms (default: the fixed date beacon-sim run's traces start at).")
    var start: Int64?

    @OptionGroup(title: "People and radio")
    var simulated: SimulationOptions

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    func validate() throws {
        guard (1...65535).contains(tag) else { throw ValidationError("--tag \(tag) is not 1…65535") }
        guard (-30...30).contains(tagOffset) else { throw ValidationError("--tag-offset \(tagOffset) is not −30…30 dB") }
        guard (10...600).contains(sectionSeconds) else { throw ValidationError("--section-seconds \(sectionSeconds) is not 10…600") }
        guard (10...600).contains(outsideSeconds) else { throw ValidationError("--outside-seconds \(outsideSeconds) is not 10…600") }
        guard (0...30).contains(unscoredSeconds) else { throw ValidationError("--unscored-seconds \(unscoredSeconds) is not 0…30") }
        if let start, !Evaluate.plausibleTimes.contains(start) { throw ValidationError("--start \(start) is not a Unix ms time between 2000 and 2100") }
        _ = try storeList()
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
    }

    /// The stores `--stores` names, nil when it is not given.
    func storeList() throws -> [StoreNumber]? {
        guard let stores else { return nil }
        let majors = stores.split(separator: ",", omittingEmptySubsequences: false).map { StoreNumber($0.trimmingCharacters(in: .whitespaces)) }
        guard !majors.isEmpty, majors.allSatisfy({ $0 != nil }) else {
            throw ValidationError("--stores \(stores) is not a comma-separated list of store numbers (majors, 0…65535)")
        }
        return majors.compactMap { $0 }
    }

    func run() throws {
        let chain = try loadChain(config)
        var settings = SimulationConfig()
        settings.seed = seed
        settings.shoppers = shoppers
        simulated.apply(to: &settings)
        if let start { settings.start = start }
        var walk = CalibrationWalk(stores: try storeList() ?? chain.stores.map(\.major))
        walk.tag = UInt16(tag)
        walk.tagOffset = tagOffset
        walk.sectionSeconds = sectionSeconds
        walk.outsideSeconds = outsideSeconds
        var simulation: Simulation
        do { simulation = try Simulation(chain: chain, config: settings) } catch {
            throw ExitCode(.configError, saying: "\(config ?? "the default chain"): \(error)")
        }
        let schedule: WalkSchedule
        do { schedule = try simulation.schedule(walk) } catch {
            throw ValidationError("--stores: \(error)")
        }
        let sightings = try simulate(&simulation, schedule: schedule, scheme: try TopicScheme(root: topicRoot))
        let seconds = (simulation.now - settings.start) / 1000
        print("beacon-sim walk: tag \(schedule.device) (\(String(format: "%+.1f", tagOffset)) dB against the typical phone) walked store(s) \(walk.stores.map(String.init).joined(separator: ", ")): every section twice, \(Int(sectionSeconds)) s each, and twice \(Int(outsideSeconds)) s outside the street door\(shoppers ? ", among the shoppers of seed \(seed)" : ""); \(seconds) s simulated, \(sightings) sightings → \(trace); truth → \(truth)")
        for visit in schedule.visits {
            print("  store \(visit.store): \(Self.clock(visit.start))–\(Self.clock(visit.end)) UTC")
        }
        print("next: beacon-aggregator calibrate --config CHAIN --truth \(truth)\(shoppers ? " --device \(schedule.device)" : "") --output calibration.json \(trace)")
    }

    /// Runs the simulation until the tag is out of the last store and out of range, writing the
    /// trace as it goes and the truth at the end: the tag's (``WalkTruth``) first, then the
    /// shoppers'. Returns how many sightings the trace holds.
    func simulate(_ simulation: inout Simulation, schedule: WalkSchedule, scheme: TopicScheme) throws -> Int {
        guard FileManager.default.createFile(atPath: trace, contents: nil), let out = FileHandle(forWritingAtPath: trace) else {
            throw ValidationError(FileProblem.cannotWrite(trace, flag: "--trace"))
        }
        defer { try? out.close() }
        var tagChanges: [TruthChange] = [], others: [TruthChange] = []
        var sightings = 0
        // Whole windows, until 5 s after the tag is gone.
        while simulation.now < schedule.end + 5_000 {
            let (batches, changes) = simulation.nextWindow()
            var text = ""
            for b in batches {
                let batch = b.sightingBatch
                sightings += b.sightings.count
                text += scheme.string(for: .sightings(store: b.store, gateway: b.gateway)) + " " + String(decoding: batch.encoded(), as: UTF8.self) + "\n"
            }
            try out.write(contentsOf: Data(text.utf8))
            for change in changes {
                if change.device == schedule.device { tagChanges.append(change) } else { others.append(change) }
            }
        }
        let margin = Int64((unscoredSeconds * 1000).rounded())
        let tagLines = WalkTruth.lines(device: schedule.device, start: schedule.start, changes: tagChanges, margin: margin)
        var text = "# beacon-sim walk: the calibration walk of \(schedule.device), seed \(seed); \(Sweep.format(unscoredSeconds)) s unscored either side of each crossing\n"
        text += (tagLines + others).map { TruthFile.line($0) + "\n" }.joined()
        text += TruthFile.endLine(simulation.now) + "\n"
        do {
            try text.write(toFile: truth, atomically: true, encoding: .utf8)
        } catch {
            throw ValidationError(FileProblem.cannotWrite(truth, flag: "--truth"))
        }
        return sightings
    }

    /// A Unix ms time as hh:mm:ss UTC.
    static func clock(_ milliseconds: Int64) -> String {
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
