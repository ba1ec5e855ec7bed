/// How many devices were in one place over a window, from their visits: each visit is +1 at its
/// enter and −1 at its exit (an open one stays to the window's end). The visits are the change
/// points; nothing else is stored, so occupancy always agrees with the visits, at any step.
struct OccupancyTimeline {
    /// The count from each change on, in time order (the first at the window's start).
    private(set) var changes: [(time: Int64, count: Int)] = []
    /// The window.
    let range: Range<Int64>

    /// The timeline of `visits` (enter, exit or nil while open) within `range`.
    init(visits: [(enter: Int64, exit: Int64?)], range: Range<Int64>) {
        self.range = range
        var steps: [(time: Int64, delta: Int)] = []
        for visit in visits {
            let end = min(visit.exit ?? range.upperBound, range.upperBound)
            let start = max(visit.enter, range.lowerBound)
            guard start < end else { continue }
            steps.append((start, 1))
            if end < range.upperBound { steps.append((end, -1)) }
        }
        // At one instant, leaving before entering: a device moving on is not counted twice.
        steps.sort { ($0.time, $0.delta) < ($1.time, $1.delta) }
        var count = 0
        changes.append((range.lowerBound, 0))
        for step in steps {
            count += step.delta
            if changes[changes.count - 1].time == step.time {
                changes[changes.count - 1].count = count
            } else {
                changes.append((step.time, count))
            }
        }
    }

    /// The highest count and when it was first reached; nil when nobody was there.
    var peak: (count: Int, at: Int64)? {
        var best: (count: Int, at: Int64)?
        for change in changes where change.count > (best?.count ?? 0) { best = (change.count, change.time) }
        return best
    }

    /// Per step of `size` ms from the window's start: the most devices at once and the
    /// time-weighted mean.
    func steps(of size: Int64) -> [HistoryReport.OccupancyStep] {
        var result: [HistoryReport.OccupancyStep] = []
        var index = 0
        var start = range.lowerBound
        while start < range.upperBound {
            let end = min(start + size, range.upperBound)
            while index + 1 < changes.count, changes[index + 1].time <= start { index += 1 }
            var most = changes[index].count
            var area = 0.0
            var cursor = start
            var current = changes[index].count
            var next = index + 1
            while next < changes.count, changes[next].time < end {
                area += Double(current) * Double(changes[next].time - cursor)
                cursor = changes[next].time
                current = changes[next].count
                most = max(most, current)
                next += 1
            }
            area += Double(current) * Double(end - cursor)
            result.append(HistoryReport.OccupancyStep(start: start, max: most, mean: (area / Double(end - start) * 100).rounded() / 100))
            start = end
        }
        return result
    }
}

/// The nearest-rank percentile `p` (0 < p ≤ 1) of `sorted` (ascending); nil when empty.
func nearestRank(_ sorted: [Int64], _ p: Double) -> Int64? {
    guard !sorted.isEmpty else { return nil }
    let rank = Int((p * Double(sorted.count)).rounded(.up))
    return sorted[min(max(rank, 1), sorted.count) - 1]
}
