import BeaconCore

/// The reports of a rule that knows where every device truly is: the truth itself as transitions,
/// right all the time and charged nothing. Its section enters still outnumber the true changes
/// where devices pass through sections: a stay shorter than ``Evaluator/minimumStay`` is no change
/// to detect, but reporting it is right, and counts as a section enter.
///
/// With a section delay, each change of section inside a store is reported that long after it,
/// and only if the device is still there then: what a rule that waits that long to be sure would
/// report if it were never wrong. Store entries and exits, and a visit's first section, are
/// reported when they happen. Without passes, the sections a device stays in for less than
/// ``Evaluator/minimumStay`` are not reported at all: a rule that foresees which stays will last,
/// which no rule that only waits can be.
public enum TruthAsReports {
    /// The transitions for `truth` (any order), section changes reported `sectionDelay` ms late,
    /// and the sections passed through left out unless `passes`.
    public static func reports(_ truth: [TruthChange], sectionDelay: Int64 = 0, passes: Bool = true, end: Int64) -> [ReportedTransition] {
        Dictionary(grouping: truth, by: \.device).values.flatMap { changes in
            deviceReports(changes.sorted { $0.time < $1.time }, sectionDelay: sectionDelay, passes: passes, end: end)
        }.sorted { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
    }

    /// One device's transitions, from its truth in time order.
    private static func deviceReports(_ changes: [TruthChange], sectionDelay: Int64, passes: Bool, end: Int64) -> [ReportedTransition] {
        var out: [ReportedTransition] = []
        var store: StoreNumber?, section: SectionNumber?
        func report(_ time: Int64, _ kind: ReportedTransition.Kind, _ store: StoreNumber, _ section: SectionNumber?) {
            out.append(ReportedTransition(time: time, device: changes[0].device, kind: kind, store: store, section: section,
                                          sequence: UInt64(out.count + 1)))
        }
        func leave(at time: Int64) {
            guard let left = store else { return }
            if let section { report(time, .exit, left, section) }
            report(time, .exit, left, nil)
        }
        for (i, change) in changes.enumerated() {
            let stay = (i + 1 < changes.count ? changes[i + 1].time : end) - change.time
            switch change.place {
            case .unscored:
                // Nobody knows where it is: the rule keeps what it said, as a real one would.
                continue
            case .outside:
                leave(at: change.time)
                store = nil
                section = nil
            case .inside(let entered, let now) where store != entered:
                leave(at: change.time)
                report(change.time, .enter, entered, nil)
                if let now { report(change.time, .enter, entered, now) }
                store = entered
                section = now
            case .inside(let entered, let now):
                // Still there when the delay is up: a stay of exactly the delay has just ended.
                guard now != section, stay > sectionDelay, passes || stay >= Evaluator.minimumStay else { continue }
                if let section { report(change.time + sectionDelay, .exit, entered, section) }
                if let now { report(change.time + sectionDelay, .enter, entered, now) }
                section = now
            }
        }
        return out
    }
}
