/// A moment in event time: Unix milliseconds as the edges stamp their sightings and batches.
///
/// Every decision is taken on event time, never on this process's clock, so a recorded trace
/// replays to the same decisions. The time between two moments is an ``EventDuration``.
package struct EventTime: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Milliseconds since 1970-01-01 UTC.
    package var milliseconds: Int64

    package init(_ milliseconds: Int64) { self.milliseconds = milliseconds }

    package static func < (lhs: EventTime, rhs: EventTime) -> Bool { lhs.milliseconds < rhs.milliseconds }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier).
    package static func - (lhs: EventTime, rhs: EventTime) -> EventDuration {
        EventDuration(milliseconds: lhs.milliseconds - rhs.milliseconds)
    }

    /// The moment `duration` after `time`.
    package static func + (time: EventTime, duration: EventDuration) -> EventTime {
        EventTime(time.milliseconds + duration.milliseconds)
    }

    /// The moment `duration` before `time`.
    package static func - (time: EventTime, duration: EventDuration) -> EventTime {
        EventTime(time.milliseconds - duration.milliseconds)
    }

    package var description: String { "\(milliseconds) ms" }
}

/// A stretch of event time, to the millisecond: how long a silence lasted, a setting's timeout.
/// Settings given in seconds (`exit_timeout_s`) become durations once, through ``seconds(_:)``.
package struct EventDuration: Comparable, Hashable, Sendable, CustomStringConvertible {
    /// Milliseconds; negative when the stretch runs backwards.
    package var milliseconds: Int64

    package init(milliseconds: Int64) { self.milliseconds = milliseconds }

    /// `seconds`, to the millisecond below (as a setting in seconds is read).
    package static func seconds(_ seconds: Double) -> EventDuration { EventDuration(milliseconds: Int64(seconds * 1000)) }

    /// No time at all.
    package static let zero = EventDuration(milliseconds: 0)

    /// The duration in seconds.
    package var seconds: Double { Double(milliseconds) / 1000 }

    package static func < (lhs: EventDuration, rhs: EventDuration) -> Bool { lhs.milliseconds < rhs.milliseconds }
    package static func + (lhs: EventDuration, rhs: EventDuration) -> EventDuration {
        EventDuration(milliseconds: lhs.milliseconds + rhs.milliseconds)
    }
    package static func - (lhs: EventDuration, rhs: EventDuration) -> EventDuration {
        EventDuration(milliseconds: lhs.milliseconds - rhs.milliseconds)
    }
    /// `count` times the duration.
    package static func * (count: Int64, duration: EventDuration) -> EventDuration {
        EventDuration(milliseconds: count * duration.milliseconds)
    }
    /// How many whole `divisor`s fit in the duration.
    package static func / (lhs: EventDuration, divisor: EventDuration) -> Int64 { lhs.milliseconds / divisor.milliseconds }
    /// The duration split in `parts`.
    package static func / (lhs: EventDuration, parts: Int64) -> EventDuration { EventDuration(milliseconds: lhs.milliseconds / parts) }

    package var description: String { "\(milliseconds) ms" }
}
