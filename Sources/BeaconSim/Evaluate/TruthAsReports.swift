import BeaconCore

/// The reports of a rule that knows where every device truly is: the truth itself as transitions.
/// Scored like any rule, it is the best the evaluator's figures can be on that truth — in small
/// rooms a device passes through sections it stays in for less than ``Evaluator/minimumStay``,
/// and reporting them is right but counts as section enters no true change explains.
///
/// With a section delay, each change of section inside a store is reported that long after it,
/// and only when the device is still there: what a rule that waits that long to be sure would
/// report if it were never wrong. Store entries and exits are reported when they happen.
public enum TruthAsReports {
    /// The transitions for `truth` (any order), section changes reported `sectionDelay` ms late.
    public static func reports(_ truth: [TruthChange], sectionDelay: Int64 = 0, end: Int64) -> [ReportedTransition] {
        Dictionary(grouping: truth, by: \.device).values.flatMap { changes in
            deviceReports(changes.sorted { $0.time < $1.time }, sectionDelay: sectionDelay, end: end)
        }.sorted { ($0.time, $0.sequence) < ($1.time, $1.sequence) }
    }

    /// One device's transitions, from its truth in time order.
    private static func deviceReports(_ changes: [TruthChange], sectionDelay: Int64, end: Int64) -> [ReportedTransition] {
        var out: [ReportedTransition] = []
        var store: StoreNumber?, section: SectionNumber?
        func report(_ time: Int64, _ kind: ReportedTransition.Kind, _ store: StoreNumber, _ section: SectionNumber?) {
            out.append(ReportedTransition(time: time, device: changes[0].device, kind: kind, store: store, section: section,
                                          sequence: UInt64(out.count + 1)))
        }
        for (i, change) in changes.enumerated() {
            let until = i + 1 < changes.count ? changes[i + 1].time : end
            switch change.place {
            case .unscored:
                // Nobody knows where it is: the rule keeps what it said, as a real one would.
                continue
            case .outside:
                if let left = store {
                    if let section { report(change.time, .exit, left, section) }
                    report(change.time, .exit, left, nil)
                }
                store = nil
                section = nil
            case .inside(let entered, let now):
                if store != entered {
                    if let left = store {
                        if let section { report(change.time, .exit, left, section) }
                        report(change.time, .exit, left, nil)
                    }
                    report(change.time, .enter, entered, nil)
                    if let now { report(change.time, .enter, entered, now) }
                    store = entered
                    section = now
                } else if let now, now != section, until - change.time >= sectionDelay {
                    if let section { report(change.time + sectionDelay, .exit, entered, section) }
                    report(change.time + sectionDelay, .enter, entered, now)
                    section = now
                }
            }
        }
        return out
    }
}
