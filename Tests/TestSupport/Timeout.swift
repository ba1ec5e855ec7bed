import Synchronization

/// An operation that did not finish in time: a hang becomes a failure, not a stuck run.
public struct TimedOut: Error, Sendable, CustomStringConvertible {
    /// What did not finish.
    public let what: String
    /// How long it was given.
    public let after: Duration

    /// `what` did not finish within `after`.
    public init(what: String, after: Duration) {
        self.what = what
        self.after = after
    }

    public var description: String { "\(what) did not finish within \(after)" }
}

/// Runs `body` and throws ``TimedOut`` if it takes longer than `limit`. The body runs in its own
/// task and is cancelled, not awaited, on timeout, so even an operation that ignores cancellation
/// cannot hang the test.
public func withTimeout<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        let once = OnceBox(continuation)
        let work = Task {
            let result: Result<T, any Error>
            do { result = .success(try await body()) } catch { result = .failure(error) }
            once.take()?.resume(with: result)
        }
        Task {
            try? await Task.sleep(for: limit)
            if let pending = once.take() {
                work.cancel()
                pending.resume(throwing: TimedOut(what: what, after: limit))
            }
        }
    }
}

/// A value the first of several racing tasks takes; the others find nothing.
public final class OnceBox<Value: Sendable>: Sendable {
    private let slot: Mutex<Value?>

    /// A box holding `value`.
    public init(_ value: Value) { slot = Mutex(value) }

    /// The value, the first time; nil after.
    public func take() -> Value? { slot.withLock { $0.take() } }
}
