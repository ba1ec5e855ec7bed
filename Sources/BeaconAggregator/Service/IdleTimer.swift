import Synchronization

/// A deadline that moves on with every message: ``expiry()`` returns once `limit` has passed
/// without a ``touch()`` (or the task is cancelled). For reads whose length is not known, only
/// that they keep coming.
final class IdleTimer: Sendable {
    private let limit: Duration
    private let last = Mutex(ContinuousClock.now)

    init(limit: Duration) {
        self.limit = limit
    }

    /// Something arrived: the limit counts from now.
    func touch() {
        last.withLock { $0 = .now }
    }

    /// Returns once `limit` has passed since the last touch.
    func expiry() async {
        while !Task.isCancelled {
            let deadline = last.withLock { $0 } + limit
            if ContinuousClock.now >= deadline { return }
            try? await Task.sleep(until: deadline)
        }
    }
}
