/// When a long replay says how far it has got: first once `interval` of wall time has passed, then
/// every `interval`. A replay that ends sooner says nothing extra, so short runs and tests keep
/// their output as it was.
///
/// The clock is a parameter so that tests can move time by hand instead of waiting.
public struct ProgressSchedule<WallClock: Clock>: Sendable where WallClock.Duration == Duration {
    /// Where the wall time comes from.
    public let clock: WallClock
    /// Wall time between two reports.
    public let interval: Duration
    /// When the replay started.
    public let start: WallClock.Instant
    private var next: WallClock.Instant

    /// A schedule starting now, on `clock`.
    public init(clock: WallClock, interval: Duration = .seconds(5)) {
        self.clock = clock
        self.interval = interval
        start = clock.now
        next = start.advanced(by: interval)
    }

    /// The wall time since the start when a report is due, nil otherwise. The next one is due
    /// `interval` after this call, not after the one missed: a replay that stalled (waiting for the
    /// broker, or a gap in the capture) reports once when it moves again, not a burst.
    public mutating func due() -> Duration? {
        let now = clock.now
        guard now >= next else { return nil }
        next = now.advanced(by: interval)
        return start.duration(to: now)
    }
}

/// One progress report of a replay, as a line for standard error: how far through its input (in
/// records or lines, and as a share of the file where its size is known), how far in the input's
/// own time, what it has produced so far and how long it has been running.
public struct ReplayProgress: Sendable, Equatable {
    /// What is replayed, which names its parts and its time.
    public enum Input: Sendable, Equatable {
        /// A btsnoop capture: records, capture time.
        case capture
        /// A sightings trace: lines, event time.
        case trace

        var name: String { self == .capture ? "capture" : "trace" }
        var part: String { self == .capture ? "records" : "lines" }
        var time: String { self == .capture ? "capture time" : "event time" }
    }

    /// What is replayed.
    public var input: Input
    /// Records or lines read so far.
    public var read: Int
    /// The share of the input read (by bytes), 0…1; nil when unknown (standard input).
    public var fraction: Double?
    /// The input's first time, ms since 1970; nil until a record or line had one.
    public var firstTime: Int64?
    /// The input's time the replay has reached, ms since 1970; nil until a record or line had one.
    public var time: Int64?
    /// What it has produced so far, in words, e.g. `["120 batches and 4310 sightings published"]`.
    public var tally: [String]
    /// Wall time since the replay started.
    public var elapsed: Duration

    /// Makes a report.
    public init(input: Input, read: Int, fraction: Double?, firstTime: Int64?, time: Int64?, tally: [String], elapsed: Duration) {
        self.input = input
        self.read = read
        self.fraction = fraction
        self.firstTime = firstTime
        self.time = time
        self.tally = tally
        self.elapsed = elapsed
    }

    /// The line, e.g. `41 % of the capture (12034 records), capture time 2024-01-01 10:12:30 UTC
    /// (1 h 02 min in), 120 batches and 4310 sightings published, 1 min 05 s elapsed`.
    public var line: String {
        var parts: [String] = []
        if let fraction {
            // Rounded down: 100 % only once everything is read.
            let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
            parts.append("\(percent) % of the \(input.name) (\(read) \(input.part))")
        } else {
            parts.append("\(read) \(input.part) of the \(input.name)")
        }
        if let time {
            let into = firstTime.map { " (\(Self.span(.milliseconds(time - $0))) in)" } ?? ""
            parts.append("\(input.time) \(Self.utc(milliseconds: time))\(into)")
        }
        parts += tally
        parts.append("\(Self.span(elapsed)) elapsed")
        return parts.joined(separator: ", ")
    }

    /// A duration in whole seconds, the way a person reads it: `42 s`, `3 min 05 s`, `1 h 02 min`,
    /// `3 d 04 h` (a negative one counts as 0 s).
    public static func span(_ duration: Duration) -> String {
        let seconds = max(duration.components.seconds, 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3600: return "\(seconds / 60) min \(two(seconds % 60)) s"
        case ..<86_400: return "\(seconds / 3600) h \(two(seconds / 60 % 60)) min"
        default: return "\(seconds / 86_400) d \(two(seconds / 3600 % 24)) h"
        }
    }

    /// `2024-01-01 10:12:30 UTC` for a time in ms since 1970 (the proleptic Gregorian calendar,
    /// from days since 1970 as in Howard Hinnant's `civil_from_days`).
    public static func utc(milliseconds: Int64) -> String {
        let seconds = milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let second = seconds - days * 86_400
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) UTC"
    }
}
