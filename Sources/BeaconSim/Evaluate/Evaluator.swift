import BeaconCore

/// Scores reported transitions against the truth.
///
/// Matching windows: a true store entry is matched by the first unmatched reported entry of the
/// same store 10 s before to 60 s after it, and before the device truly leaves that store again;
/// an exit likewise up to 120 s after, and before it truly comes back; a section change by
/// the first report of entering that section from 5 s before until the device's next true change
/// (at most 30 s). Unmatched truths are missed. A reported store entry (exit) is false when no true
/// entry (exit) of that store happened 60 s (120 s) before to 10 s after it; a reported section
/// change no true move into that section explains is a flap. Truths too close to the end of the
/// run to be matched are not counted.
///
/// Unscored spans (``TruthPlace/unscored``): their time is not scored, a report made in one is
/// never charged, and a change into or out of one is no change to detect. Where the truth could
/// have changed unseen, the rule may report that change: an unscored span counts as a possible
/// entry into and exit from every store at its start and end, so a report within the windows
/// above of either is not false; a section change into the place the truth resumes in is no
/// flap; and a report up to 5 s (sections) or 10 s (stores) before an unscored span starts is
/// not charged either (it may be early for a change made in it).
public enum Evaluator {
    /// Section stays shorter than this are passing through, not a change to detect, ms.
    public static let minimumStay: Int64 = 5000
    /// How long after a true change the reported state is counted as settling, not settled, ms:
    /// about the section-change latency the issue allows (3 s).
    public static let settleTime: Int64 = 3000

    /// Scores `reported` against `truth` over the period up to `end`, Unix ms: reports after it
    /// are ignored, and truths too close to it to be matched are not counted.
    public static func evaluate(truth: [TruthChange], reported: [ReportedTransition], end: Int64) -> EvaluationReport {
        var report = EvaluationReport()
        // The scored period ends at `end`: later reports would be false or flaps against hours
        // that are not counted.
        let reported = reported.filter { $0.time <= end }
        let truthByDevice = Dictionary(grouping: truth.sorted { $0.time < $1.time }, by: \.device)
        let reportedByDevice = Dictionary(grouping: reported.sorted { ($0.time, $0.sequence) < ($1.time, $1.sequence) }, by: \.device)
        var inStore: Int64 = 0, sectionRight: Int64 = 0, storeRight: Int64 = 0
        var settled: Int64 = 0, settledRight: Int64 = 0

        for device in Set(truthByDevice.keys).union(reportedByDevice.keys).sorted() {
            let truths = truthByDevice[device] ?? []
            let reports = reportedByDevice[device] ?? []
            /// The place before change `i`: outside before the device's first truth line.
            func placeBefore(_ i: Int) -> TruthPlace { i > 0 ? truths[i - 1].place : .outside }

            // Reported timeline: (time, store, section) after each report.
            var timeline: [(Int64, StoreNumber?, SectionNumber?)] = []
            var store: StoreNumber?, section: SectionNumber?
            for r in reports {
                switch (r.kind, r.section) {
                // A store's enter repeated keeps the section; an exit clears only the store it names
                // (with `--stores`, the store left may report its exit after the next store's enter).
                case (.enter, nil): if store != r.store { store = r.store; section = nil }
                case (.enter, let s?): store = r.store; section = s
                case (.exit, nil): if r.store == store { store = nil; section = nil }
                // A section exit clears only the section it names (a producer may send the new
                // section's enter first, in the same millisecond).
                case (.exit, let s?): if r.store == store && s == section { section = nil }
                }
                timeline.append((r.time, store, section))
            }
            func reportedAt(_ t: Int64) -> (StoreNumber?, SectionNumber?) {
                var lo = 0, hi = timeline.count
                while lo < hi {
                    let mid = (lo + hi) / 2
                    if timeline[mid].0 <= t { lo = mid + 1 } else { hi = mid }
                }
                return lo == 0 ? (nil, nil) : (timeline[lo - 1].1, timeline[lo - 1].2)
            }

            // Time-weighted accuracy, integrated piecewise over truth and report change points.
            // Outside and unscored time are not in-store time; the end of an unscored span counts
            // as a change for settling (the place is known again from then).
            let cuts = (truths.map(\.time) + timeline.map(\.0) + [end]).filter { $0 <= end }.sorted()
            var truePlace = TruthPlace.outside
            var changed: Int64 = .min
            var ti = 0
            for (a, b) in zip(cuts, cuts.dropFirst()) where b > a {
                while ti < truths.count && truths[ti].time <= a {
                    truePlace = truths[ti].place
                    changed = truths[ti].time
                    ti += 1
                }
                guard case .inside(let trueStore, let trueSection) = truePlace else { continue }
                let seen = reportedAt(a)
                let calm = b - min(b, max(a, changed + settleTime))  // the part past the settling time
                inStore += b - a
                settled += calm
                if seen.0 == trueStore {
                    storeRight += b - a
                    if seen.1 == trueSection {
                        sectionRight += b - a
                        settledRight += calm
                    }
                }
            }

            // Store entries and exits. A report after the device truly crossed back (left the
            // store it entered, came back into the one it left) is about that crossing, not this one.
            func nextCrossing(after i: Int, of store: StoreNumber, into: Bool) -> Int64 {
                truths[(i + 1)...].first { into ? $0.store == store : $0.place.isScored && $0.store != store }.map { $0.time - 1 } ?? .max
            }
            var used = Set<Int>()
            var truthUsed = Set<Int>()
            for (i, t) in truths.enumerated() {
                // A change into or out of an unscored span is no change to detect.
                guard t.place.isScored, placeBefore(i).isScored else { continue }
                let before = placeBefore(i).store
                // A move straight from one store to another is an exit from the first and an entry
                // into the second.
                if let s = t.store, before != s, t.time <= end - 60_000 {
                    let deadline = min(t.time + 60_000, nextCrossing(after: i, of: s, into: false))
                    if let k = reports.indices.first(where: { !used.contains($0) && reports[$0].kind == .enter && reports[$0].section == nil
                        && reports[$0].store == s && reports[$0].time >= t.time - 10_000 && reports[$0].time <= deadline }) {
                        used.insert(k)
                        report.enterLatencies.append(reports[k].time - t.time)
                    } else {
                        report.missedEnters += 1
                    }
                }
                if let s = before, t.store != s, t.time <= end - 120_000 {
                    let deadline = min(t.time + 120_000, nextCrossing(after: i, of: s, into: true))
                    if let k = reports.indices.first(where: { !used.contains($0) && reports[$0].kind == .exit && reports[$0].section == nil
                        && reports[$0].store == s && reports[$0].time >= t.time - 10_000 && reports[$0].time <= deadline }) {
                        used.insert(k)
                        report.exitLatencies.append(reports[k].time - t.time)
                    } else {
                        report.missedExits += 1
                    }
                }
                // Section changes inside one store that last.
                if let s = t.store, let to = t.section, before == s, let from = placeBefore(i).section, from != to {
                    let next = i + 1 < truths.count ? truths[i + 1].time : end
                    guard next - t.time >= minimumStay, t.time <= end - 30_000 else { continue }
                    // A return to the section held before stays too short to count (passing
                    // through) is no change either: a rule that ignored the pass misses nothing.
                    var k = i - 1
                    while k > 0, truths[k].store == s, truths[k + 1].time - truths[k].time < minimumStay { k -= 1 }
                    if k < i - 1, truths[k].store == s, truths[k].section == to { continue }
                    let deadline = min(next, t.time + 30_000)
                    if let k = reports.indices.first(where: { !used.contains($0) && reports[$0].kind == .enter && reports[$0].store == s
                        && reports[$0].section == to && reports[$0].time >= t.time - 5_000 && reports[$0].time <= deadline }) {
                        used.insert(k)
                        truthUsed.insert(i)
                        report.sectionChangeLatencies.append(reports[k].time - t.time)
                    } else {
                        report.missedSectionChanges += 1
                    }
                }
            }
            /// Whether some instant of `window` lies in an unscored span.
            func unscored(within window: ClosedRange<Int64>) -> Bool {
                truths.indices.contains { i in
                    truths[i].place == .unscored && truths[i].time <= window.upperBound
                        && (i + 1 == truths.count || truths[i + 1].time > window.lowerBound)
                }
            }
            // Reports no truth explains. A true entry into (exit from) a store is a change at `i`
            // into (out of) it from anywhere else: outside, before the first change, or another
            // store; an unscored place may be in or out of any store.
            func trueStoreTransition(_ kind: ReportedTransition.Kind, of store: StoreNumber, within window: ClosedRange<Int64>) -> Bool {
                func mayBeIn(_ place: TruthPlace) -> Bool { place == .unscored || place.store == store }
                func mayBeOut(_ place: TruthPlace) -> Bool { place == .unscored || place.store != store }
                return truths.indices.contains { i in
                    let crossed = kind == .enter ? mayBeOut(placeBefore(i)) && mayBeIn(truths[i].place)
                        : mayBeIn(placeBefore(i)) && mayBeOut(truths[i].place)
                    return crossed && window.contains(truths[i].time)
                }
            }
            func trueMove(into r: ReportedTransition) -> Int? {
                truths.indices.first { !truthUsed.contains($0) && truths[$0].section == r.section && truths[$0].store == r.store
                    && truths[$0].time >= r.time - 30_000 && truths[$0].time <= r.time + 5_000 }
            }
            // The section reported last and its store: the first section after a store enter is
            // no change; another store's late exit does not make the next change a first section.
            var lastSection: SectionNumber?, lastStore: StoreNumber?
            for (k, r) in reports.enumerated() {
                defer {
                    switch (r.kind, r.section) {
                    case (.enter, _?): lastSection = r.section; lastStore = r.store
                    case (.enter, nil): if r.store != lastStore { lastSection = nil; lastStore = r.store }
                    case (.exit, nil): if r.store == lastStore { lastSection = nil }
                    case (.exit, _?): break
                    }
                }
                let isSectionChange = r.kind == .enter && r.section != nil && lastSection != nil
                // Made in unscored time, or just before an unscored span: never charged.
                if unscored(within: r.time...(r.time + (r.section == nil ? 10_000 : 5_000))) { continue }
                guard !used.contains(k) else {
                    if isSectionChange { report.sectionEnters += 1 }
                    continue
                }
                switch (r.kind, r.section) {
                case (.enter, nil):
                    // False: no true entry into that store shortly before or after.
                    if !trueStoreTransition(.enter, of: r.store, within: (r.time - 60_000)...(r.time + 10_000)) {
                        report.falseEnters += 1
                    }
                case (.exit, nil):
                    // False: no true exit from that store shortly before or after.
                    if !trueStoreTransition(.exit, of: r.store, within: (r.time - 120_000)...(r.time + 10_000)) {
                        report.falseExits += 1
                    }
                case (.enter, _?):
                    // A section enter right after a store enter is the first section, not a change;
                    // it claims the true entry it reports, which then cannot also excuse a flap back
                    // into that section. A change is justified by a true move into that section (a
                    // short one included) that no other report has claimed; otherwise it is a flap.
                    // One that catches up with the place the truth resumes in after an unscored span
                    // is neither a flap nor a section enter to count.
                    if let j = trueMove(into: r) {
                        truthUsed.insert(j)
                        if isSectionChange && placeBefore(j).isScored { report.sectionEnters += 1 }
                    } else if isSectionChange {
                        report.flaps += 1
                        report.sectionEnters += 1
                    }
                case (.exit, _?): break
                }
            }
        }
        report.deviceHours = Double(inStore) / 3_600_000
        report.sectionAccuracy = inStore > 0 ? Double(sectionRight) / Double(inStore) : 0
        report.storeAccuracy = inStore > 0 ? Double(storeRight) / Double(inStore) : 0
        report.settledSectionAccuracy = settled > 0 ? Double(settledRight) / Double(settled) : 0
        report.settlingShare = inStore > 0 ? Double(inStore - settled) / Double(inStore) : 0
        return report
    }
}
