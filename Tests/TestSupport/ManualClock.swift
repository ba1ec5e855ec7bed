import Synchronization

/// A clock that moves only when the test says so: for code that takes a clock, tested without
/// waiting. Copies share one time (it is a class).
public final class ManualClock: Clock, Sendable {
    /// A point on the manual clock: the time advanced since it was made.
    public struct Instant: InstantProtocol, Sendable {
        /// Time since the clock was made.
        public var offset: Duration

        public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        public func duration(to other: Instant) -> Duration { other.offset - offset }
        public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private let current = Mutex(Instant(offset: .zero))

    /// A clock at zero.
    public init() {}

    public var now: Instant { current.withLock { $0 } }
    public var minimumResolution: Duration { .nanoseconds(1) }

    /// Moves the clock forward.
    public func advance(by duration: Duration) { current.withLock { $0 = $0.advanced(by: duration) } }

    /// Returns once the test has advanced the clock to `deadline`, checking every millisecond of
    /// real time.
    public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
        while now < deadline { try await Task.sleep(for: .milliseconds(1)) }
    }
}
