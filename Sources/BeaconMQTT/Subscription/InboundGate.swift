import Dispatch
import Synchronization

/// Back-pressure for a ``MQTTInboundOverflow/pauseReading`` subscription: the network thread
/// waits in ``admit()`` while the subscription holds `capacity` messages the consumer has not
/// taken, and goes on once the consumer has taken half of them (waking it for every message
/// would cost a thread switch each).
///
/// One network thread feeds a subscription, so there is at most one waiter.
final class InboundGate: Sendable {
    let capacity: Int
    private let state = Mutex<(buffered: Int, waiting: Bool, open: Bool)>((0, false, false))
    private let wake = DispatchSemaphore(value: 0)

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Network thread, before a message is handed over: returns when there is room (or the gate
    /// is open for good).
    func admit() {
        while true {
            let mustWait = state.withLock { s -> Bool in
                if s.open || s.buffered < capacity {
                    s.buffered += 1
                    return false
                }
                s.waiting = true
                return true
            }
            if !mustWait { return }
            wake.wait()
        }
    }

    /// Consumer, for each message it took out of the buffer.
    func taken() {
        let signal = state.withLock { s -> Bool in
            s.buffered -= 1
            guard s.waiting, s.buffered <= capacity / 2 else { return false }
            s.waiting = false
            return true
        }
        if signal { wake.signal() }
    }

    /// Never waits again: the consumer is gone or the client is closing, and the network thread
    /// must be able to finish (a waiting one is woken).
    func open() {
        let signal = state.withLock { s -> Bool in
            s.open = true
            defer { s.waiting = false }
            return s.waiting
        }
        if signal { wake.signal() }
    }

    /// Messages handed over and not yet taken (tests).
    var buffered: Int { state.withLock { $0.buffered } }
}
