/// A capture's records with each one's time judged before it is trusted.
///
/// Capture tools write records as they happen, so a capture's clock only moves forward, apart from
/// reorderings of milliseconds. A record whose time leaps more than ``jumpBound`` away from the
/// record before it while the record after it lands back within that bound of the one before is
/// a corrupt timestamp (a flipped bit, a torn write), not a real gap: a real gap — a capture paused
/// for an hour — carries on from its new time. Trusted, such a record would move a replay's clock
/// (and the batches and heartbeats that follow it) years ahead, or make a real-time replay sleep
/// that long. A record outside ``BtsnoopTimestamp/plausibleRange`` is never trusted.
///
/// One record is read ahead; a record with no usable record before it (the first) or after it (the
/// last, or one followed by an implausible record) is kept, since a gap cannot be told from a
/// corrupt time there.
public struct BtsnoopTimeline {
    /// What a record's time is worth.
    public enum Verdict: Sendable, Hashable {
        /// Microseconds since 1970-01-01 00:00 UTC.
        case time(Int64)
        /// Not a date between 1970 and 2112 (``BtsnoopTimestamp/isPlausible``).
        case implausible
        /// A leap away and straight back: the record in between is corrupt.
        case jump
    }

    /// How far apart two neighbouring records may be before the rule above looks at them: far more
    /// than any reordering a capture tool makes, far less than a corrupt date's leap.
    public static let jumpBound: Int64 = 60_000_000

    private var records: BtsnoopRecordIterator
    private var ahead: BtsnoopRecord?
    private var failure: BtsnoopError?
    private var started = false
    /// The time of the last record judged usable.
    private var last: Int64?

    /// Judges the records of `file`.
    public init(_ file: BtsnoopFile) {
        records = file.records
    }

    /// The next record and its verdict; nil at the end. A truncated record throws once, after the
    /// records before it.
    public mutating func next() throws(BtsnoopError) -> (record: BtsnoopRecord, verdict: Verdict)? {
        if !started {
            started = true
            ahead = read()
        }
        guard let current = ahead else {
            if let failure {
                self.failure = nil
                throw failure
            }
            return nil
        }
        ahead = read()
        guard current.timestamp.isPlausible else { return (current, .implausible) }
        let time = current.timestamp.unixMicroseconds
        if let last, abs(time - last) > Self.jumpBound, let next = ahead, next.timestamp.isPlausible {
            let after = next.timestamp.unixMicroseconds
            if abs(after - time) > Self.jumpBound, abs(after - last) <= Self.jumpBound { return (current, .jump) }
        }
        last = time
        return (current, .time(time))
    }

    private mutating func read() -> BtsnoopRecord? {
        guard failure == nil else { return nil }
        do {
            return try records.next()
        } catch {
            failure = error
            return nil
        }
    }
}
