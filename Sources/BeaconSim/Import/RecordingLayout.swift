public import BeaconEngine
import BeaconCore

/// Lays runs out as edges would have published them: each run on its own, or all of a dataset's
/// runs end to end, a gap apart, so that one replay scores the whole dataset.
///
/// Each run's windows start one window before its first row (a lead-in of empty batches, the
/// edges already up) and end with the window holding its last row. Its truth starts `unscored`
/// at the lead-in, so the device's first place is not taken for an entry (a car parked in the
/// chamber when the recording starts did not drive in), and ends with the end line, or, when
/// another run follows, with an `unscored` line: through the gap the gateways keep sending empty
/// batches, and whatever the aggregator decides then is not scored.
public enum RecordingLayout {
    /// The edge's batch window, ms.
    public static let window: Int64 = 1000

    /// The first (lead-in) window's start and the last window's end of `run`, in its own time.
    static func windows(of run: RecordedRun) -> (start: Int64, end: Int64) {
        (floor(run.span.lowerBound) - window, floor(run.span.upperBound) + window)
    }

    static func floor(_ t: Int64) -> Int64 {
        let q = t / window
        return (t % window < 0 ? q - 1 : q) * window
    }

    /// How far each run's times move to lie end to end, `gap` apart (rounded up to whole windows)
    /// from the end of one run's last window to the start of the next one's lead-in; the first run
    /// stays where it is.
    public static func shifts(_ runs: [RecordedRun], gap: Int64) -> [Int64] {
        let gap = (gap + window - 1) / window * window
        var shifts: [Int64] = []
        var previousEnd: Int64?
        for run in runs {
            let (start, end) = windows(of: run)
            let shift = previousEnd.map { $0 + gap - start } ?? 0
            shifts.append(shift)
            previousEnd = end + shift
        }
        return shifts
    }

    /// One run, its times moved by `shift`, each gateway's `seq` from 0.
    public static func single(_ run: RecordedRun, shift: Int64 = 0, chain: Chain) -> Recording {
        lay([run], shifts: [shift], chain: chain)
    }

    /// All `runs` end to end, `gap` ms apart (see ``shifts(_:gap:)``).
    public static func combined(_ runs: [RecordedRun], gap: Int64, chain: Chain) -> Recording {
        lay(runs, shifts: shifts(runs, gap: gap), chain: chain)
    }

    static func lay(_ runs: [RecordedRun], shifts: [Int64], chain: Chain) -> Recording {
        precondition(!runs.isEmpty && runs.count == shifts.count)
        var readings: [(gateway: Int, observation: Observation)] = []
        var truth: [TruthChange] = []
        var lastPlace: [DeviceID: TruthPlace] = [:]
        func note(_ change: TruthChange) {
            // An unscored span already open goes on: a second line would say nothing new.
            if change.place == .unscored && lastPlace[change.device] == .unscored { return }
            truth.append(change)
            lastPlace[change.device] = change.place
        }
        for (k, (run, shift)) in zip(runs, shifts).enumerated() {
            for r in run.readings {
                readings.append((r.gateway, Observation(device: run.device, time: r.time + shift, rssi: r.rssi)))
            }
            note(TruthChange(time: windows(of: run).start + shift, device: run.device, place: .unscored))
            for change in run.truth { note(TruthChange(time: change.time + shift, device: change.device, place: change.place)) }
            if k + 1 < runs.count {
                // After the last row; after a change on the last row too, so that the two never tie.
                let after = max(run.span.upperBound, (run.truth.last?.time ?? .min) + 1)
                note(TruthChange(time: after + shift, device: run.device, place: .unscored))
            }
        }
        var batcher = EdgeBatcher(chain: chain, window: window)
        let start = windows(of: runs[0]).start + shifts[0]
        let end = windows(of: runs[runs.count - 1]).end + shifts[shifts.count - 1]
        // Runs laid end to end do not overlap, so their readings are already in time order; within
        // one run a row's readings share its time.
        let batches = batcher.batches(readings, from: start, to: end)
        return Recording(batches: batches, truth: truth, end: runs[runs.count - 1].span.upperBound + shifts[shifts.count - 1])
    }
}
