import BeaconCore

extension Evaluator {
    /// One device's truth and reports, scored in three steps (see ``Evaluator``): the time its
    /// reported place was right, the true changes the reports caught, and the reports no truth
    /// explains.
    struct DeviceScore {
        /// The device's true changes, in time order.
        let truths: [TruthChange]
        /// The device's reports up to ``end``, in time and sequence order.
        let reports: [ReportedTransition]
        let end: Int64
        /// The reported place after each report: (time, store, section).
        let timeline: [(Int64, StoreNumber?, SectionNumber?)]
        /// Reports matched to a true change: never charged as false or as a flap.
        private var used = Set<Int>()
        /// True section changes a report has claimed: they cannot justify another.
        private var truthUsed = Set<Int>()

        init(truths: [TruthChange], reports: [ReportedTransition], end: Int64) {
            self.truths = truths
            self.reports = reports
            self.end = end
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
            self.timeline = timeline
        }

        /// The place before change `i`: outside before the device's first truth line.
        func placeBefore(_ i: Int) -> TruthPlace { i > 0 ? truths[i - 1].place : .outside }

        /// The reported store and section at `t`.
        func reportedAt(_ t: Int64) -> (StoreNumber?, SectionNumber?) {
            var lo = 0, hi = timeline.count
            while lo < hi {
                let mid = (lo + hi) / 2
                if timeline[mid].0 <= t { lo = mid + 1 } else { hi = mid }
            }
            return lo == 0 ? (nil, nil) : (timeline[lo - 1].1, timeline[lo - 1].2)
        }

        /// Time-weighted accuracy, integrated piecewise over truth and report change points.
        /// Outside and unscored time are not in-store time; the end of an unscored span counts as
        /// a change for settling (the place is known again from then).
        func addTime(to time: inout TimeShares) {
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
                time.inStore += b - a
                time.settled += calm
                if seen.0 == trueStore {
                    time.storeRight += b - a
                    if seen.1 == trueSection {
                        time.sectionRight += b - a
                        time.settledRight += calm
                    }
                }
            }
        }

        /// Matches each true store entry, store exit and lasting section change to the first
        /// unmatched report of it within its window, counting it caught (with its latency) or missed.
        mutating func matchTruths(into report: inout EvaluationReport) {
            for (i, t) in truths.enumerated() {
                // A change into or out of an unscored span is no change to detect.
                guard t.place.isScored, placeBefore(i).isScored else { continue }
                let before = placeBefore(i).store
                // A move straight from one store to another is an exit from the first and an entry
                // into the second.
                if let s = t.store, before != s, t.time <= end - 60_000 {
                    let deadline = min(t.time + 60_000, nextCrossing(after: i, of: s, into: false))
                    if let k = firstUnmatched(where: { $0.kind == .enter && $0.section == nil
                        && $0.store == s && $0.time >= t.time - 10_000 && $0.time <= deadline }) {
                        used.insert(k)
                        report.enterLatencies.append(reports[k].time - t.time)
                    } else {
                        report.missedEnters += 1
                        if let lead = earlyEnterLead(at: i, into: s) { report.earlyEnterLeads.append(lead) }
                    }
                }
                if let s = before, t.store != s, t.time <= end - 120_000 {
                    let deadline = min(t.time + 120_000, nextCrossing(after: i, of: s, into: true))
                    if let k = firstUnmatched(where: { $0.kind == .exit && $0.section == nil
                        && $0.store == s && $0.time >= t.time - 10_000 && $0.time <= deadline }) {
                        used.insert(k)
                        report.exitLatencies.append(reports[k].time - t.time)
                    } else {
                        report.missedExits += 1
                    }
                }
                matchSectionChange(i, into: &report)
            }
        }

        /// Matches true change `i` if it is a section change inside one store that lasts.
        private mutating func matchSectionChange(_ i: Int, into report: inout EvaluationReport) {
            let t = truths[i], before = placeBefore(i)
            guard let s = t.store, let to = t.section, before.store == s, let from = before.section, from != to else { return }
            let next = i + 1 < truths.count ? truths[i + 1].time : end
            guard next - t.time >= minimumStay, t.time <= end - Evaluator.lateWindow else { return }
            // A return to the section held before stays too short to count (passing
            // through) is no change either: a rule that ignored the pass misses nothing.
            var k = i - 1
            while k > 0, truths[k].store == s, truths[k + 1].time - truths[k].time < minimumStay { k -= 1 }
            if k < i - 1, truths[k].store == s, truths[k].section == to { return }
            let deadline = min(next, t.time + Evaluator.lateWindow)
            if let k = firstUnmatched(where: { $0.kind == .enter && $0.store == s
                && $0.section == to && $0.time >= t.time - Evaluator.earlyWindow && $0.time <= deadline }) {
                used.insert(k)
                truthUsed.insert(i)
                report.sectionChangeLatencies.append(reports[k].time - t.time)
            } else {
                report.missedSectionChanges += 1
            }
        }

        /// The first report not matched yet that `matches`.
        private func firstUnmatched(where matches: (ReportedTransition) -> Bool) -> Int? {
            reports.indices.first { !used.contains($0) && matches(reports[$0]) }
        }

        /// How long before true change `i` into `store` the reports had already put the device
        /// there, ms, when that was more than 10 s before it and after the device last truly
        /// left `store`; nil otherwise (then it is a plain miss, or the exit before it was missed).
        private func earlyEnterLead(at i: Int, into store: StoreNumber) -> Int64? {
            let crossing = truths[i].time
            guard var k = timeline.lastIndex(where: { $0.0 < crossing }), timeline[k].1 == store else { return nil }
            while k > 0 && timeline[k - 1].1 == store { k -= 1 }
            let left = truths[..<i].indices.last { placeBefore($0).store == store && truths[$0].store != store }
            let entered = timeline[k].0
            // An entry reported while the truth was unscored may have been right then.
            guard crossing - entered > 10_000, left.map({ truths[$0].time < entered }) ?? true,
                  !unscored(within: entered...crossing) else { return nil }
            return crossing - entered
        }

        /// Store entries and exits: a report after the device truly crossed back (left the store
        /// it entered, came back into the one it left) is about that crossing, not this one.
        private func nextCrossing(after i: Int, of store: StoreNumber, into: Bool) -> Int64 {
            truths[(i + 1)...].first { into ? $0.store == store : $0.place.isScored && $0.store != store }.map { $0.time - 1 } ?? .max
        }
    }
}

extension Evaluator.DeviceScore {
    /// Charges the reports no truth explains: false store entries and exits, section changes
    /// that are flaps; and counts the reported section enters.
    mutating func chargeUnexplainedReports(into report: inout EvaluationReport) {
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
            if unscored(within: r.time...(r.time + (r.section == nil ? 10_000 : Evaluator.earlyWindow))) { continue }
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
            case (.enter, let section?):
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
                    countFlap(into: .inside(store: r.store, section: section), at: r.time, report: &report)
                    report.sectionEnters += 1
                }
            case (.exit, _?): break
            }
        }
    }

    /// Whether some instant of `window` lies in an unscored span.
    private func unscored(within window: ClosedRange<Int64>) -> Bool {
        truthHas({ $0 == .unscored }, within: window)
    }

    /// Counts a flap into `place` at `time` as a return (the device is truly there) or as back
    /// across a boundary (it left there in the 30 s before), what the two columns tell apart.
    private func countFlap(into place: TruthPlace, at time: Int64, report: inout EvaluationReport) {
        let now = truths.last { $0.time <= time }?.place ?? .outside
        if now == place {
            report.flapReturns += 1
        } else if truthHas({ $0 == place }, within: (time - 30_000)...time) {
            report.flapsBack += 1
        }
    }

    /// Whether the device's true place matched `matches` at some instant of `window`.
    private func truthHas(_ matches: (TruthPlace) -> Bool, within window: ClosedRange<Int64>) -> Bool {
        truths.indices.contains { i in
            matches(truths[i].place) && truths[i].time <= window.upperBound
                && (i + 1 == truths.count || truths[i + 1].time > window.lowerBound)
        }
    }

    /// Whether a true entry into (exit from) `store` happened within `window`: a change at `i`
    /// into (out of) it from anywhere else (outside, before the first change, or another store);
    /// an unscored place may be in or out of any store.
    private func trueStoreTransition(_ kind: ReportedTransition.Kind, of store: StoreNumber, within window: ClosedRange<Int64>) -> Bool {
        func mayBeIn(_ place: TruthPlace) -> Bool { place == .unscored || place.store == store }
        func mayBeOut(_ place: TruthPlace) -> Bool { place == .unscored || place.store != store }
        return truths.indices.contains { i in
            let crossed = kind == .enter ? mayBeOut(placeBefore(i)) && mayBeIn(truths[i].place)
                : mayBeIn(placeBefore(i)) && mayBeOut(truths[i].place)
            return crossed && window.contains(truths[i].time)
        }
    }

    /// The true move into `r`'s section, not yet claimed, from 30 s before `r` to 5 s after.
    private func trueMove(into r: ReportedTransition) -> Int? {
        truths.indices.first { !truthUsed.contains($0) && truths[$0].section == r.section && truths[$0].store == r.store
            && truths[$0].time >= r.time - Evaluator.lateWindow && truths[$0].time <= r.time + Evaluator.earlyWindow }
    }
}
