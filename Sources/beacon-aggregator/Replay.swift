import ArgumentParser
import BeaconAggregator
import BeaconCommandLine
import BeaconCore
import BeaconEngine
import BeaconWire
#if canImport(Glibc)
import Glibc
#endif

/// `beacon-aggregator replay --config FILE TRACE`: runs a recorded trace (`mosquitto_sub -v`
/// format) through the same validation and engine as the live service, in event time, as fast as
/// the CPU allows, and prints every message the service would publish, in the same format.
struct Replay: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Replay a recorded sightings trace and print what the aggregator would publish.",
        discussion: """
            Record a trace with: mosquitto_sub -v -t 'beaconnet/sightings/#' -t 'beaconnet/gateways/+/status' > trace.txt
            Output lines are 'topic payload', like mosquitto_sub -v; problems go to standard error, and \
            so does, every 5 s of a replay that runs longer, how far it has got.
            Messages the aggregator would refuse are refused as it would (exit 0); a trace that cannot \
            be read, has lines that are not 'topic payload' or ends mid-message exits 65 after \
            replaying what it could.
            """)

    @Option(help: "The chain config (JSON).")
    var config: String

    @Argument(help: "The trace file, or - for standard input.")
    var trace: String

    @Option(help: "Only these stores, e.g. 1-250,300 (as a live instance with --stores).")
    var stores: String?

    @Option(help: "Aggregator id used in reject topics.")
    var id = "replay"

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    @Option(help: "After the trace, let this many seconds of event time pass, the gateways alive at its end hearing no one (exits of devices still inside; 0…86400).")
    var drain: Double = 0

    @Option(help: "Put the trace back into event-time order first, holding each message until event time is this many seconds past it (0: off; 0…86400). For a trace with a broker outage, in which edges sent their backlogs one after another: use a window longer than the outage. That much traffic is held in memory.")
    var reorder: Double = 0

    @Option(help: "Refuse batches sent longer before the chain's event time (the second-newest gateway's newest batch) than this (stale_time), seconds (10…31536000).")
    var maxBatchAge: Double = 86_400

    @Option(help: "Tuning keys to try instead of the config's, as a JSON object, e.g. '{\"rule\":\"hmm\",\"switch_margin_db\":4}'.")
    var tuning: String?

    func validate() throws {
        guard (0...86_400).contains(drain) else { throw ValidationError("--drain \(drain) is not 0…86400 seconds") }
        guard (0...86_400).contains(reorder) else { throw ValidationError("--reorder \(reorder) is not 0…86400 seconds") }
        guard (10...31_536_000).contains(maxBatchAge) else { throw ValidationError("--max-batch-age \(maxBatchAge) is not 10…31536000 seconds") }
    }

    func run() throws {
        let chain: Chain
        do {
            chain = try ChainConfig.load(path: config, tuning: tuning).resolve()
        } catch {
            throw ExitCode(.configError, saying: "\(error)")
        }
        let selection: StoreSelection
        do { selection = try stores.map { try StoreSelection(parsing: $0) } ?? .all } catch {
            throw ValidationError("\(error)")
        }
        let scheme: TopicScheme
        let aggregator: AggregatorID
        do {
            scheme = try TopicScheme(root: topicRoot)
            aggregator = try AggregatorID(id)
        } catch {
            throw ValidationError("\(error)")
        }
        var processor = MessageProcessor(chain: chain, scheme: scheme, aggregator: aggregator, stores: selection)
        processor.maxBatchAge = Int64(maxBatchAge * 1000)
        var reader: TraceReader
        do { reader = try TraceReader(path: trace) } catch {
            throw ExitCode(.dataError, saying: "\(error)")
        }
        var output = BufferedStdout()
        let damage = replay(&reader, into: &processor, output: &output)
        if let error = reader.readError {
            output.flush()
            throw ExitCode(.dataError, saying: "\(error)")
        }
        var out: [Outbound] = []
        if drain > 0, let latest = processor.engine.latestEventTime {
            processor.drain(to: latest + Int64(drain * 1000), into: &out)
            for o in out { output.line(o.traceLine) }
        }
        output.flush()
        StandardError.write(Self.summary(processor))
        // Last, after everything the trace did hold was replayed: a damaged trace still shows
        // what it can, and the status says it is damaged.
        if let damage { throw ExitCode(.dataError, saying: "replay: \(trace) \(damage)") }
    }

    /// Runs every line of the trace through `processor`, in file order or put back into event
    /// time (`--reorder`), printing what it publishes. Returns what is wrong with the trace as a
    /// file — lines that are not `topic payload`, a last line cut off mid-message — or nil.
    func replay(_ reader: inout TraceReader, into processor: inout MessageProcessor, output: inout BufferedStdout) -> String? {
        var out: [Outbound] = []
        var badLines = 0
        var cutOffLine: Int?
        var cutOffRejected = false
        func handle(_ line: TraceReader.Line, number: Int) {
            let verdict = processor.handle(topic: line.topic, payload: line.payload, now: nil, into: &out)
            if case .rejected(let reason, let detail) = verdict {
                StandardError.write("trace line \(number): rejected (\(reason)): \(detail)\n")
                // A last line without its line end that does not decode was cut off mid-message;
                // one that decodes (refused or not on its merits) was only written without a
                // final newline.
                if number == cutOffLine, case .payload = reason { cutOffRejected = true }
            }
            for o in out { output.line(o.traceLine) }
            out.removeAll(keepingCapacity: true)
        }
        // At most 512 MiB of payloads held: event time stalls when one of only two gateways stops.
        var held = reorder > 0 ? EventTimeReorder<(TraceReader.Line, Int)>(window: Int64(reorder * 1000), capacity: 512 << 20) : nil
        var warned = false
        var progress = TraceProgress()
        while let line = reader.next() {
            if reader.endsMidLine { cutOffLine = reader.lineNumber }
            switch line {
            case .failure(let error):
                badLines += 1
                StandardError.write("\(error)\n")
            case .success(let line):
                if held != nil {
                    let key = processor.orderingKey(topic: line.topic, payload: line.payload)
                    held!.push((line, reader.lineNumber), source: key?.source, time: key?.time, cost: line.payload.count + line.topic.utf8.count + 64)
                    while let (due, number) = held!.pop() { handle(due, number: number) }
                    if held!.overflowed && !warned {
                        warned = true
                        StandardError.write("trace line \(reader.lineNumber): --reorder holds 512 MiB, the most it will: event time has stalled (with only two gateways, one has stopped?) or the window is long for this traffic; releasing the oldest messages from here on, not in event-time order\n")
                    }
                } else {
                    handle(line, number: reader.lineNumber)
                }
            }
            progress.check(reader: reader, processor: processor)
        }
        while let (due, number) = held?.pop(flush: true) { handle(due, number: number) }
        var damage: [String] = []
        if badLines > 0 { damage.append("has \(badLines) line(s) that are not 'topic payload'") }
        if let cutOffLine, cutOffRejected { damage.append("ends mid-message: line \(cutOffLine) has no line end and does not decode (cut off while recorded or copied?)") }
        return damage.isEmpty ? nil : damage.joined(separator: " and ")
    }

    /// The last line on standard error: what was replayed, refused and decided.
    static func summary(_ processor: MessageProcessor) -> String {
        let c = processor.counters
        // A batch 64 or more of its gateway's batches older than the newest and sent well before
        // it is taken for a repeat: in a trace edited or merged by hand that is data lost, so it
        // is said; so are `seq`s that fit no gateway's run.
        let d = processor.engine.statistics.duplicateBatches
        var duplicates = d == 0 ? "" : ", \(d) batches ignored as repeats of a seq already seen (or 64 or more older than their gateway's newest and sent 30 s or more before it)"
        let anomalies = processor.engine.gatewayCounters().reduce(0) { $0 + $1.seqAnomalies }
        if anomalies > 0 { duplicates += ", \(anomalies) sequence anomalies (seq_anomalies: docs/ENGINE.md)" }
        return "replay: \(c.messages) messages, \(c.sightings) sightings, \(c.rejects.values.reduce(0, +)) rejected\(c.rejects.isEmpty ? "" : " (" + c.rejects.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ") + ")"), \(processor.engine.statistics.transitions) transitions\(duplicates)\n"
    }
}
