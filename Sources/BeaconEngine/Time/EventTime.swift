/// A moment in event time: Unix milliseconds as the edges stamp their sightings and batches.
///
/// Every decision is taken on event time, never on this process's clock, so a recorded trace
/// replays to the same decisions. Durations between two moments are plain milliseconds (`Int64`).
package struct EventTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 UTC.
    package var milliseconds: Int64

    package init(_ milliseconds: Int64) { self.milliseconds = milliseconds }

    package static func < (lhs: EventTime, rhs: EventTime) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// Milliseconds from `rhs` to `lhs` (negative when `lhs` is earlier).
    package static func - (lhs: EventTime, rhs: EventTime) -> Int64 { lhs.milliseconds - rhs.milliseconds }

    /// The moment `milliseconds` after `time`.
    package static func + (time: EventTime, milliseconds: Int64) -> EventTime { EventTime(time.milliseconds + milliseconds) }

    /// The moment `milliseconds` before `time`.
    package static func - (time: EventTime, milliseconds: Int64) -> EventTime { EventTime(time.milliseconds - milliseconds) }

    package var description: String { "\(milliseconds) ms" }
}
