import BeaconAggregator
import BeaconCommandLine
import BeaconCore

/// How far `replay` has got, on standard error every 5 s of wall time once it has run that long (a
/// replay of days of traffic takes minutes). Standard output keeps only what the aggregator would
/// publish: tests and scripts compare it byte for byte.
struct TraceProgress {
    private var schedule = ProgressSchedule(clock: ContinuousClock())
    private var firstTime: Int64?

    /// Writes a report when one is due; cheap otherwise (a clock read), so it runs after every line.
    mutating func check(reader: borrowing TraceReader, processor: MessageProcessor) {
        let time = processor.engine.latestEventTime
        if firstTime == nil, let time { firstTime = time }
        guard let elapsed = schedule.due() else { return }
        let counters = processor.counters
        let progress = ReplayProgress(
            input: .trace, read: reader.lineNumber,
            fraction: reader.size.map { $0 > 0 ? Double(reader.bytesRead) / Double($0) : 1 },
            firstTime: firstTime, time: time,
            tally: ["\(counters.messages) messages", "\(counters.sightings) sightings", "\(processor.engine.statistics.transitions) transitions"],
            elapsed: elapsed)
        StandardError.write("replay: \(progress.line)\n")
    }
}
