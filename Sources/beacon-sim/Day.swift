import ArgumentParser
import BeaconAggregator
import BeaconCommandLine
import BeaconCore
import BeaconEngine
import BeaconSim
import BeaconWire
import Foundation

/// `beacon-sim day`: a whole shop day simulated and decided faster than real time, written as the
/// events and device states the aggregator would have published — what `beacon-history import`
/// turns into a day of history (the demo's charts).
struct Day: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Simulate a shop day and write the aggregator's events and device states, for beacon-history import.",
        discussion: """
            Shoppers arrive from --opens to --closes (hours of the day in the machine's time zone, TZ), fewest in \
            the morning and most late in the afternoon (docs/HISTORY.md); half an hour after closing the last have \
            left. Every gateway's sightings go through the aggregator's own decisions (as beacon-aggregator replay \
            does), and the region events and device states it publishes are written as 'topic payload' lines, as \
            mosquitto_sub -v prints them. Then: beacon-history import --database FILE … EVENTS.
            """)

    @Option(help: "Chain config with floor polygons (default: the generated 3 stores × 6 sections, as run and chain).")
    var config: String?

    @Option(help: "Write the events and device states as 'topic payload' lines here.")
    var events: String

    @Option(help: "The day, YYYY-MM-DD (default: yesterday).")
    var date: String?

    @Option(help: "The hour the doors open (0–23).")
    var opens = 8

    @Option(help: "The hour the doors close (1–24, after --opens).")
    var closes = 20

    @Option(help: "Mean seconds between arrivals per store in the busiest hour.")
    var busiestArrivalInterval = 20.0

    @Option(help: "Random seed: the same seed gives the same day.")
    var seed: UInt64 = 1

    @Option(help: "Topic root.")
    var topicRoot = "beaconnet"

    func validate() throws {
        guard (0...23).contains(opens), (1...24).contains(closes), closes > opens else {
            throw ValidationError("--opens \(opens) --closes \(closes): give hours 0–24 with the doors opening before they close")
        }
        guard busiestArrivalInterval >= 1, busiestArrivalInterval.isFinite else {
            throw ValidationError("--busiest-arrival-interval \(busiestArrivalInterval) is not 1 s or more")
        }
        _ = try midnight()
        do { _ = try TopicScheme(root: topicRoot) } catch { throw ValidationError("--topic-root: \(error)") }
    }

    /// The start of `--date` (yesterday when not given) in the machine's time zone, Unix ms.
    func midnight() throws -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        guard let date else {
            // A day back by the calendar, not 24 hours: a daylight-saving change has 23 or 25.
            let today = calendar.startOfDay(for: Date())
            let yesterday = calendar.date(byAdding: .day, value: -1, to: today) ?? today.addingTimeInterval(-86_400)
            return Int64(yesterday.timeIntervalSince1970 * 1000)
        }
        let parts = date.split(separator: "-").map { Int($0) }
        guard parts.count == 3, let year = parts[0], let month = parts[1], let day = parts[2],
              (2000...2099).contains(year),
              let start = calendar.date(from: DateComponents(year: year, month: month, day: day)),
              calendar.component(.day, from: start) == day else {
            throw ValidationError("--date \(date) is not a day as YYYY-MM-DD between 2000 and 2099")
        }
        return Int64(start.timeIntervalSince1970 * 1000)
    }

    func run() throws {
        let chain = try loadChain(config)
        let day = FootfallDay(opens: opens, closes: closes, busiestArrivalInterval: busiestArrivalInterval)
        let midnight = try midnight()
        var settings = SimulationConfig()
        settings.seed = seed
        settings.start = Self.time(hour: opens, of: midnight)
        settings.initialShoppers = 0
        settings.staffPerStore = 0
        var simulation: Simulation
        do { simulation = try Simulation(chain: chain, config: settings) } catch {
            throw ExitCode(.configError, saying: "\(config ?? "the default chain"): \(error)")
        }
        guard FileManager.default.createFile(atPath: events, contents: nil), let out = FileHandle(forWritingAtPath: events) else {
            throw ValidationError(FileProblem.cannotWrite(events, flag: "--events"))
        }
        defer { try? out.close() }
        let scheme = try TopicScheme(root: topicRoot)
        var processor = MessageProcessor(chain: chain, scheme: scheme, aggregator: try AggregatorID("beacon-sim-day"), stores: .all)
        let end = Self.time(hour: closes, of: midnight) + Self.afterClosing
        var written = 0
        var visitors = Set<DeviceID>()
        while simulation.now < end {
            simulation.setArrivals(every: day.arrivalInterval(hour: Self.hour(of: simulation.now)))
            let (batches, changes) = simulation.nextWindow()
            visitors.formUnion(changes.filter { $0.store != nil }.map(\.device))
            var outbound: [Outbound] = []
            for b in batches {
                let batch = b.sightingBatch
                _ = processor.handle(topic: scheme.string(for: .sightings(store: b.store, gateway: b.gateway)), payload: batch.encoded(), now: nil, into: &outbound)
            }
            written += try write(outbound, to: out, scheme: scheme)
        }
        var outbound: [Outbound] = []
        processor.drain(to: simulation.now + 120_000, into: &outbound)
        written += try write(outbound, to: out, scheme: scheme)
        print("beacon-sim day: \(Walk.clock(settings.start).prefix(5))–\(Walk.clock(end).prefix(5)) UTC, \(chain.stores.count) stores, \(visitors.count) shoppers simulated; \(written) events and device states → \(events)")
        print("next: beacon-history import --database FILE --pseudonym-secret SECRET \(events)")
    }

    /// When `hour` (0–24; 24: the next midnight) begins on the day starting at `midnight` (Unix
    /// ms), on the machine's clock, daylight saving included.
    static func time(hour: Int, of midnight: Int64) -> Int64 {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        let day = Date(timeIntervalSince1970: Double(midnight) / 1000)
        let at = calendar.date(byAdding: .hour, value: hour, to: day).flatMap { guess in
            hour == 24 ? calendar.date(byAdding: .day, value: 1, to: day)
                : calendar.date(bySettingHour: hour, minute: 0, second: 0, of: day) ?? guess
        }
        return at.map { Int64($0.timeIntervalSince1970 * 1000) } ?? midnight + Int64(hour) * 3_600_000
    }

    /// The hour of the day at `time` (Unix ms) on the machine's clock, daylight saving included.
    static func hour(of time: Int64) -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone.current
        return calendar.component(.hour, from: Date(timeIntervalSince1970: Double(time) / 1000))
    }

    /// After closing, the simulation goes on this long (ms) with the doors shut: the last shoppers leave.
    static let afterClosing: Int64 = 1_800_000

    /// Writes the events and device states among `outbound`; returns how many.
    func write(_ outbound: [Outbound], to out: FileHandle, scheme: TopicScheme) throws -> Int {
        var text = "", count = 0
        for o in outbound {
            switch try? scheme.parse(o.topic) {
            case .event, .deviceState:
                text += o.traceLine + "\n"
                count += 1
            default:
                continue
            }
        }
        if !text.isEmpty { try out.write(contentsOf: Data(text.utf8)) }
        return count
    }
}
