/// Rate-limited logging of rejects: one line per reason per ``interval``, saying how many of that
/// reason were not logged since, so a flood of bad messages shows without flooding the log.
struct RejectLog {
    /// When a reason was last logged, and how many of it were not logged since.
    struct Entry {
        /// Clock time of the last line, Unix ms.
        var time: Int64
        /// Rejects of the reason not logged since.
        var suppressed: Int
    }

    /// The least time between two lines of one reason, ms.
    static let interval: Int64 = 10_000
    private var entries: [String: Entry] = [:]

    /// Whether a reject of `code` at `now` gets its line: if so, how many of that reason were not
    /// logged before it; nil when it is suppressed (and counted).
    mutating func admit(_ code: String, at now: Int64) -> Int? {
        if let entry = entries[code], now - entry.time < Self.interval {
            entries[code]?.suppressed += 1
            return nil
        }
        let suppressed = entries[code]?.suppressed ?? 0
        entries[code] = Entry(time: now, suppressed: 0)
        return suppressed
    }
}
