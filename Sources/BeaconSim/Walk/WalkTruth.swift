public import BeaconCore

/// The truth a person would write for a calibration walk (docs/CALIBRATION.md, section 3), made
/// from where the simulated tag really was: outside from when it set off, each section or
/// outside from a few seconds after it crossed into it, and `unscored` for the few seconds
/// either side of each crossing, where a person with a watch could not say.
public enum WalkTruth {
    /// How long is left unscored either side of a crossing by default, ms.
    public static let margin: Int64 = 3_000

    /// The truth lines of the tag whose true place `changes` are (the simulation's, in time
    /// order; it sets off outside at `start`): an outside line at `start`, then per crossing an
    /// `unscored` line `margin` before it and the new place `margin` after it. A place left again
    /// within `2 × margin` stays unscored. A margin of 0 gives the exact crossings.
    public static func lines(device: DeviceID, start: Int64, changes: [TruthChange], margin: Int64 = margin) -> [TruthChange] {
        let crossings = changes.filter { $0.device == device }.sorted { $0.time < $1.time }
        var lines = [TruthChange(time: start, device: device, place: .outside)]
        func add(_ time: Int64, _ place: TruthPlace) {
            // A crossing right after setting off: the later line stands for both.
            while let last = lines.last, last.time >= time { lines.removeLast() }
            if lines.last?.place == place { return }
            lines.append(TruthChange(time: time, device: device, place: place))
        }
        for (k, crossing) in crossings.enumerated() {
            add(crossing.time - margin, .unscored)
            let next = k + 1 < crossings.count ? crossings[k + 1].time : Int64.max
            if next - margin > crossing.time + margin { add(crossing.time + margin, crossing.place) }
        }
        return lines
    }
}
