public import BeaconCore
import Logging

extension BtsnoopReplay {
    /// How far a replay has got, logged every ``ProgressSchedule/interval`` of wall time once it
    /// has run that long (a replay at the recorded pace can take hours): the share of the capture
    /// and the records read, the capture time reached, and what the broker has acknowledged.
    public struct ProgressTracker<WallClock: Clock>: Sendable where WallClock.Duration == Duration {
        private var schedule: ProgressSchedule<WallClock>
        private let total: Int
        private var records = 0
        private var position = 0
        private var firstTime: Int64?
        private var time: Int64?

        /// Progress through a capture of `total` bytes, starting now on `clock`.
        public init(total: Int, clock: WallClock, interval: Duration = .seconds(5)) {
            schedule = ProgressSchedule(clock: clock, interval: interval)
            self.total = total
        }

        /// One more record read, which starts `offset` bytes into the file.
        public mutating func read(offset: Int) {
            records += 1
            position = offset
        }

        /// The capture time reached (µs since 1970, as replayed).
        public mutating func reached(microseconds: Int64) {
            let milliseconds = microseconds / 1000
            if firstTime == nil { firstTime = milliseconds }
            time = milliseconds
        }

        /// The report, when one is due (``ProgressSchedule/due()``).
        public mutating func report(counters: EdgeCounters?) -> ReplayProgress? {
            guard let elapsed = schedule.due() else { return nil }
            let tally = counters.map {
                ["\($0.publishedBatches.load(ordering: .relaxed)) batches and \($0.published.load(ordering: .relaxed)) sightings published"]
            }
            return ReplayProgress(
                input: .capture, read: records, fraction: total > 0 ? Double(position) / Double(total) : nil,
                firstTime: firstTime, time: time, tally: tally ?? [], elapsed: elapsed)
        }

        /// Logs the report when one is due, at `info`: `--log-level warning` leaves it out.
        mutating func log(to logger: Logger, counters: EdgeCounters?, path: String) {
            guard let progress = report(counters: counters) else { return }
            logger.info("replay: \(progress.line)", metadata: ["replay.file": "\(path)"])
        }
    }
}
