import Synchronization

/// Waiting for work with a deadline, when the work itself cannot be interrupted (a QoS 1 publish
/// waits through reconnects and ignores cancellation).
enum Race {
    /// Runs `work` in its own task and returns true when it finishes within `limit`, false when the
    /// limit comes first (the work goes on in the background and its result is dropped).
    static func first(within limit: Duration, _ work: @escaping @Sendable () async -> Void) async -> Bool {
        await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                once.resume(false)
            }
            Task {
                await work()
                once.resume(true)
                timer.cancel()
            }
        }
    }
}

/// A continuation that the first of several racing tasks resumes; the others do nothing.
final class ResumeOnce<T: Sendable>: Sendable {
    private let continuation: Mutex<CheckedContinuation<T, Never>?>

    init(_ continuation: CheckedContinuation<T, Never>) { self.continuation = Mutex(continuation) }

    func resume(_ value: T) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}
