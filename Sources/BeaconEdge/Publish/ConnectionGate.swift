import Synchronization

/// Whether the broker connection is up, and a way to wait until it is. Fed by the session's
/// connection events; the publisher waits here instead of retrying into a closed connection.
final class ConnectionGate: Sendable {
    private struct State {
        var connected = false
        var closed = false
        var waiters: [CheckedContinuation<Bool, Never>] = []
    }
    private let state = Mutex(State())

    var isConnected: Bool { state.withLock { $0.connected } }

    /// Records a change; opening wakes every waiter.
    func set(connected: Bool) {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.connected = connected
            guard connected else { return [] }
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: true) }
    }

    /// Ends every wait with false, for good (the session is closing).
    func close() {
        let waiters = state.withLock { state -> [CheckedContinuation<Bool, Never>] in
            state.closed = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume(returning: false) }
    }

    /// Returns true once connected, false if the gate was closed first.
    func waitUntilConnected() async -> Bool {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool? in
                if state.closed { return false }
                if state.connected { return true }
                state.waiters.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
    }
}
