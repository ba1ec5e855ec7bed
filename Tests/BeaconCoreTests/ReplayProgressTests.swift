import BeaconCore
import TestSupport
import Testing

/// The progress a long replay prints: when (on a clock moved by hand, no waiting) and what.
@Suite("Replay progress")
struct ReplayProgressTests {
    @Test("nothing before the first interval, then one report per interval; a stall gives one report, not a burst")
    func schedule() {
        let clock = ManualClock()
        var schedule = ProgressSchedule(clock: clock, interval: .seconds(5))
        #expect(schedule.due() == nil, "a replay that just started")
        clock.advance(by: .milliseconds(4_999))
        #expect(schedule.due() == nil, "a replay shorter than the interval says nothing")
        clock.advance(by: .milliseconds(1))
        #expect(schedule.due() == .seconds(5))
        #expect(schedule.due() == nil, "once per interval")
        clock.advance(by: .seconds(4))
        #expect(schedule.due() == nil)
        clock.advance(by: .seconds(1))
        #expect(schedule.due() == .seconds(10))
        // 32 s without a look (the replay waited for a gap in the capture): one report now…
        clock.advance(by: .seconds(32))
        #expect(schedule.due() == .seconds(42))
        #expect(schedule.due() == nil)
        // …and the next a whole interval after it.
        clock.advance(by: .seconds(3))
        #expect(schedule.due() == nil)
        clock.advance(by: .seconds(2))
        #expect(schedule.due() == .seconds(47))
    }

    @Test("a capture's line: share, records, capture time and how far in, the tally, the wall time")
    func captureLine() {
        let progress = ReplayProgress(
            input: .capture, read: 12_034, fraction: 0.4199, firstTime: 1_704_067_200_000, time: 1_704_070_950_500,
            tally: ["120 batches and 4310 sightings published"], elapsed: .seconds(65))
        #expect(progress.line == "41 % of the capture (12034 records), capture time 2024-01-01 01:02:30 UTC (1 h 02 min in), "
            + "120 batches and 4310 sightings published, 1 min 05 s elapsed")
    }

    @Test("a trace from standard input: no share; before any dated line no time")
    func traceLine() {
        var progress = ReplayProgress(
            input: .trace, read: 7, fraction: nil, firstTime: nil, time: nil, tally: ["7 messages", "0 transitions"], elapsed: .seconds(5))
        #expect(progress.line == "7 lines of the trace, 7 messages, 0 transitions, 5 s elapsed")
        progress.fraction = 1
        progress.time = 1_709_251_199_999  // the last millisecond of February 2024, a leap year
        #expect(progress.line == "100 % of the trace (7 lines), event time 2024-02-29 23:59:59 UTC, 7 messages, 0 transitions, 5 s elapsed")
    }

    @Test("durations and dates as a person reads them", arguments: [
        (Duration.zero, "0 s"), (.milliseconds(59_999), "59 s"), (.seconds(60), "1 min 00 s"), (.seconds(3_599), "59 min 59 s"),
        (.seconds(3_600), "1 h 00 min"), (.seconds(86_399), "23 h 59 min"), (.seconds(90_061), "1 d 01 h"), (.seconds(-3), "0 s"),
    ])
    func span(_ duration: Duration, _ text: String) {
        #expect(ReplayProgress.span(duration) == text)
    }

    @Test("UTC dates across eras, leap days and before 1970", arguments: [
        (Int64(0), "1970-01-01 00:00:00 UTC"), (-1, "1969-12-31 23:59:59 UTC"), (951_782_400_000, "2000-02-29 00:00:00 UTC"),
        (4_102_444_799_000, "2099-12-31 23:59:59 UTC"), (1_704_067_200_000, "2024-01-01 00:00:00 UTC"),
    ])
    func utc(_ milliseconds: Int64, _ text: String) {
        #expect(ReplayProgress.utc(milliseconds: milliseconds) == text)
    }
}
