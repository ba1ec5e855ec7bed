/// How long visits lasted, counted in fixed bins: the shape between the median and the 90th
/// percentile that those two figures hide (a store whose visits are either 2 or 20 minutes long,
/// say). The same bins for stores and sections, so that the charts compare.
public enum DwellHistogram {
    /// Where each bin starts, s; the last is open-ended: under 1 minute, 1–2, 2–5, 5–10, 10–15,
    /// 15–30, 30–60 minutes, and an hour or more.
    public static let binStarts: [Int64] = [0, 60, 120, 300, 600, 900, 1_800, 3_600]

    /// The bins' labels, for tables and charts (`0-1 min` … `60+ min`).
    public static let labels: [String] = binStarts.indices.map { i in
        let from = binStarts[i] / 60
        return i + 1 < binStarts.count ? "\(from)-\(binStarts[i + 1] / 60) min" : "\(from)+ min"
    }

    /// The count of `dwells` (ms) in each bin.
    public static func counts(_ dwells: [Int64]) -> [Int] {
        var counts = Array(repeating: 0, count: binStarts.count)
        for dwell in dwells {
            let seconds = dwell / 1000
            let bin = binStarts.lastIndex { $0 <= seconds } ?? 0
            counts[bin] += 1
        }
        return counts
    }
}
