import Synchronization

/// How many more messages the publisher may have in flight: the sender takes a slot per message,
/// the collector gives it back per acknowledgement.
final class PublishWindow: Sendable {
    private typealias State = (free: Int, closed: Bool, waiter: CheckedContinuation<Bool, Never>?, settled: CheckedContinuation<Bool, Never>?)
    private let size: Int
    private let state: Mutex<State>

    init(size: Int) {
        self.size = max(1, size)
        state = Mutex((self.size, false, nil, nil))
    }

    /// For a sender holding one slot: waits until every other message is acknowledged; false
    /// once closed.
    func othersSettled() async -> Bool {
        await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool? in
                if s.closed { return false }
                if s.free >= size - 1 { return true }
                s.settled = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Takes a slot, waiting for one if none is free; false once closed.
    func acquire() async -> Bool {
        /// The answer without waiting, if there is one.
        func take(_ s: inout State) -> Bool? {
            if s.closed { return false }
            if s.free > 0 { s.free -= 1; return true }
            return nil
        }
        // Most calls find a slot: no continuation for those.
        if let now = state.withLock({ take(&$0) }) { return now }
        return await withCheckedContinuation { continuation in
            let now = state.withLock { s -> Bool? in
                if let now = take(&s) { return now }
                s.waiter = continuation
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }

    /// Gives a slot back (to the waiting sender, if any).
    func release() {
        let (waiter, settled) = state.withLock { s -> (CheckedContinuation<Bool, Never>?, CheckedContinuation<Bool, Never>?) in
            if let waiter = s.waiter {
                s.waiter = nil
                return (waiter, nil)
            }
            s.free += 1
            guard s.free >= size - 1, let settled = s.settled else { return (nil, nil) }
            s.settled = nil
            return (nil, settled)
        }
        waiter?.resume(returning: true)
        settled?.resume(returning: true)
    }

    /// No more slots, ever: a waiting sender gets false.
    func close() {
        let (waiter, settled) = state.withLock { s -> (CheckedContinuation<Bool, Never>?, CheckedContinuation<Bool, Never>?) in
            s.closed = true
            defer {
                s.waiter = nil
                s.settled = nil
            }
            return (s.waiter, s.settled)
        }
        waiter?.resume(returning: false)
        settled?.resume(returning: false)
    }
}
