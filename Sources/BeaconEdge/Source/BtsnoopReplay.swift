public import AsyncAlgorithms
public import BeaconCore
import BeaconWire
import Foundation
public import Logging
public import ServiceLifecycle

/// Replays a btsnoop capture (`btmon -w`, datalink 2001; Android's HCI snoop log, 1002; or 1001)
/// into the pipeline, through exactly the channel the live scanner uses.
///
/// At ``Speed/max`` records go as fast as the pipeline takes them and windows follow the recorded
/// timestamps; at a finite speed each record is sent when its (scaled) time comes, and the clock
/// between records is sent too, so empty windows still produce their heartbeat on time. The
/// service returns when the file is done, which starts the group's graceful shutdown (flush, final
/// status, disconnect).
public final class BtsnoopReplay: Service, Sendable {
    /// How fast to replay.
    public enum Speed: Sendable, Equatable, CustomStringConvertible {
        /// As fast as possible.
        case max
        /// `factor` times the recorded pace (1 = as recorded).
        case factor(Double)

        /// Parses `max` or a positive number.
        public init?(_ text: String) {
            if text == "max" {
                self = .max
            } else if let value = Double(text), (0.001...1_000_000).contains(value) {
                self = .factor(value)
            } else {
                return nil
            }
        }

        /// `max` or the factor.
        public var description: String {
            switch self {
            case .max: return "max"
            case .factor(let value): return value == value.rounded() ? String(Int(value)) : String(value)
            }
        }
    }

    /// The capture.
    public let file: BtsnoopFile
    /// Where it came from, for logs.
    public let path: String
    /// How fast.
    public let speed: Speed
    /// Added to every recorded time (µs): 0 keeps the recorded times; ``rebasedOffset(for:)``
    /// moves the first record to now.
    public let timeOffset: Int64
    /// What the broker has acknowledged, for the progress reports; nil leaves that out.
    public let counters: EdgeCounters?
    /// Wall time between progress reports (``ProgressTracker``), and before the first.
    public let progressInterval: Duration
    private let output: AsyncChannel<[SourceItem]>
    private let logger: Logger

    /// Reads and checks the capture's header.
    /// - Throws: ``ReplayError`` when the file cannot be read or is not a supported btsnoop file.
    public static func open(_ path: String) throws(ReplayError) -> BtsnoopFile {
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue {
            throw .unreadable(path: path, errno: EISDIR)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            // Foundation does not leave errno set; opening the file again says why it failed.
            let descriptor = Foundation.open(path, O_RDONLY)
            let code = descriptor < 0 ? Foundation.errno : EIO
            if descriptor >= 0 { close(descriptor) }
            throw .unreadable(path: path, errno: code)
        }
        do {
            return try BtsnoopFile(Array(data))
        } catch {
            throw .notACapture(path: path, error)
        }
    }

    /// The time (µs since 1970) a record recorded at `recorded` is replayed at with `offset`, or nil
    /// when that time is outside what the wire carries (``WireLimits/timeRange``, 2015 to 2099): the
    /// aggregator would refuse every batch dated so. A capture from a gateway whose clock was never
    /// set (1970, 2000) is such a capture; ``rebasedOffset(for:)`` moves it to now.
    public static func replayTime(_ recorded: Int64, offset: Int64) -> Int64? {
        let time = recorded &+ offset
        return wireTimes.contains(time) ? time : nil
    }

    /// ``WireLimits/timeRange`` in µs.
    private static let wireTimes = WireLimits.default.timeRange.lowerBound * 1000...(WireLimits.default.timeRange.upperBound * 1000 + 999)

    /// The offset that moves the capture's first record to now.
    public static func rebasedOffset(for file: BtsnoopFile) -> Int64 {
        var timeline = BtsnoopTimeline(file)
        var first: Int64?
        while let (_, verdict) = try? timeline.next() {
            if case .time(let time) = verdict { first = time; break }
        }
        guard let first else { return 0 }
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return now - first
    }

    /// Makes the replay; `output` is the pipeline's input channel.
    public init(
        file: BtsnoopFile, path: String, speed: Speed, timeOffset: Int64 = 0, output: AsyncChannel<[SourceItem]>,
        counters: EdgeCounters? = nil, progressInterval: Duration = .seconds(5), logger: Logger
    ) {
        self.file = file
        self.path = path
        self.speed = speed
        self.timeOffset = timeOffset
        self.counters = counters
        self.progressInterval = progressInterval
        self.output = output
        self.logger = logger
    }

    /// Sends every HCI event of the capture, then finishes the channel.
    /// - Throws: ``ReplayError/endsEarly(path:_:)`` after sending the records before a cut-off
    ///   record.
    public func run() async throws {
        defer { output.finish() }
        var timeline = BtsnoopTimeline(file)
        var chunk: [SourceItem] = []
        chunk.reserveCapacity(256)
        var events = 0
        var implausible = 0
        let clock = ContinuousClock()
        var origin: (wall: ContinuousClock.Instant, capture: Int64)?
        var progress = ProgressTracker(total: file.bytes.count, clock: clock, interval: progressInterval)
        var cutOff: BtsnoopError?
        do {
            while let (record, verdict) = try timeline.next() {
                if Task.isCancelled || Task.isShuttingDownGracefully { break }
                progress.read(offset: record.offset)
                progress.log(to: logger, counters: counters, path: path)
                guard let event = record.hciEvent else { continue }
                guard case .time(let recorded) = verdict, let time = Self.replayTime(recorded, offset: timeOffset) else {
                    // A corrupt record, or one the wire cannot date: its reports cannot be placed.
                    implausible += 1
                    if implausible == 1 {
                        let reason = switch verdict {
                        case .jump: "record whose timestamp leaps away and back skipped"
                        case .implausible: "record with an impossible timestamp skipped"
                        case .time: "record dated before 2015 or after 2099, which the wire does not carry, skipped (--rebase-time replays a capture as of now)"
                        }
                        logger.warning("\(reason)", metadata: [
                            "replay.file": "\(path)", "replay.offset": "\(record.offset)", "replay.timestamp": "\(record.timestamp.rawValue)"])
                    }
                    continue
                }
                progress.reached(microseconds: time)
                if case .factor(let factor) = speed {
                    let start = origin ?? (clock.now, time)
                    origin = start
                    let due = start.wall + .microseconds(Double(time - start.capture) / factor)
                    if due - clock.now > .seconds(60) {
                        // A real gap in the capture is replayed as recorded; say so, or a replay
                        // that waits hours looks hung.
                        logger.notice("the capture is silent here; waiting as recorded (--speed max skips gaps)", metadata: [
                            "replay.file": "\(path)", "replay.offset": "\(record.offset)", "replay.wait_s": "\(Int((due - clock.now) / .seconds(1)))"])
                    }
                    if due > clock.now {
                        if !chunk.isEmpty {
                            await output.send(chunk)
                            chunk.removeAll(keepingCapacity: true)
                        }
                        try await wait(until: due, next: time, origin: start, factor: factor, clock: clock, progress: &progress)
                    }
                }
                chunk.append(.packet(HCIPacket(event: event, time: time)))
                events += 1
                if chunk.count == 256 || speed != .max {
                    await output.send(chunk)
                    chunk.removeAll(keepingCapacity: true)
                }
            }
        } catch let error as BtsnoopError {
            // A capture cut off while it was written: replay what came before, then say so.
            cutOff = error
        }
        if !chunk.isEmpty { await output.send(chunk) }
        logger.info("replay done", metadata: [
            "replay.file": "\(path)", "replay.events": "\(events)", "replay.speed": "\(speed)", "replay.skipped_records": "\(implausible)"])
        // Thrown after the records before the cut are sent: the group still shuts down gracefully
        // (they are published), and the edge then exits with a data error rather than 0.
        if let cutOff { throw ReplayError.endsEarly(path: path, cutOff) }
    }

    /// Sleeps until `due`, telling the pipeline the capture's clock every 100 ms of wall time so
    /// that windows close (and heartbeats go out) during gaps between records. The clock never
    /// passes `next`, the record still to come: when this task wakes late (a busy machine), a tick
    /// past it would close a window before that record is in it. Progress is reported during the
    /// wait too: a gap in the capture can be long.
    private func wait(
        until due: ContinuousClock.Instant, next: Int64, origin: (wall: ContinuousClock.Instant, capture: Int64),
        factor: Double, clock: ContinuousClock, progress: inout ProgressTracker<ContinuousClock>
    ) async throws {
        while !Task.isShuttingDownGracefully {
            progress.log(to: logger, counters: counters, path: path)
            let now = clock.now
            if now >= due { return }
            try await Task.sleep(until: min(due, now + .milliseconds(100)), clock: clock)
            let elapsed = clock.now - origin.wall
            let (seconds, attoseconds) = elapsed.components
            let micros = Double(seconds) * 1e6 + Double(attoseconds) / 1e12
            await output.send([.clock(min(origin.capture + Int64(micros * factor), next - 1))])
        }
    }
}

/// A capture that cannot be replayed.
public enum ReplayError: Error, Sendable, CustomStringConvertible {
    /// The file could not be read; `errno` as the read left it.
    case unreadable(path: String, errno: Int32)
    /// The file is not a btsnoop capture this reader understands.
    case notACapture(path: String, BtsnoopError)
    /// The capture is cut off mid-record (a capture still being written, a copy that stopped
    /// short); the records before the cut were replayed.
    case endsEarly(path: String, BtsnoopError)

    /// One line for the operator.
    public var description: String {
        switch self {
        case .unreadable(let path, let code):
            return "cannot read capture \(path): \(String(cString: strerror(code))) (errno \(code))"
        case .notACapture(let path, let error):
            return "\(path) is not a capture BeaconNet can read: \(error)"
        case .endsEarly(let path, let error):
            return "\(path) ends early: \(error); the records before it were replayed"
        }
    }
}
