import CMosquitto

/// Matching acknowledgements (PUBACK, PUBCOMP, SUBACK, and the write of a QoS 0 publish, all
/// reported by packet id) to the callers waiting for them.
///
/// The race this handles: the caller learns the packet id only when `mosquitto_publish_v5`
/// returns, but libmosquitto's network thread may already have sent the packet and processed
/// the broker's answer by then. An acknowledgement for an id nobody waits for is parked in
/// `early`, and the caller picks it up when it registers. Both sides hold the same lock, so
/// exactly one of them sees the other.
extension ClientCore {
    /// Runs `send` (a libmosquitto call that fills in the packet id) and waits for the
    /// acknowledgement of that id. `epoch` is the connection epoch read before `send`:
    /// if the connection was lost in between and the packet does not survive a reconnect, the
    /// caller gets `.connectionLost` instead of waiting forever.
    func sendAndAwaitAck(
        epoch: UInt64, survivesReconnect: Bool,
        send: (inout Int32) -> Int32, failure: (Int32) -> MQTTError
    ) async -> Result<[Int32], MQTTError> {
        switch self.send(survivesReconnect: survivesReconnect, send, failure: failure) {
        case .failure(let error): return .failure(error)
        case .success(let mid): return await awaitAck(mid: mid, epoch: epoch, survivesReconnect: survivesReconnect)
        }
    }

    /// Runs `send` and returns the packet id it filled in, or the failure its return code means.
    func send(survivesReconnect: Bool, _ send: (inout Int32) -> Int32, failure: (Int32) -> MQTTError) -> Result<Int32, MQTTError> {
        var mid: Int32 = 0
        let rc = send(&mid)
        // A QoS 1/2 publish that finds the socket gone (the connection dropped after the phase
        // check) is still queued by libmosquitto, which sends it after the reconnect: wait for
        // its acknowledgement like any packet in flight, or the caller would resend it and the
        // broker would get it twice while the caller counted it as not sent.
        let queued = survivesReconnect && rc == Int32(MOSQ_ERR_NO_CONN.rawValue)
        guard rc == MOSQ_ERR_SUCCESS || queued else { return .failure(failure(rc)) }
        return .success(mid)
    }

    /// Waits for the acknowledgement of packet `mid`, sent in connection `epoch` (it may already
    /// have arrived: then it is waiting in `early`). Cancelling the waiting task ends the wait
    /// with ``MQTTError/cancelled``; the packet's acknowledgement is then dropped when it comes.
    func awaitAck(mid: Int32, epoch: UInt64, survivesReconnect: Bool) async -> Result<[Int32], MQTTError> {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let immediate = state.withLock { state -> Result<[Int32], MQTTError>? in
                    if let codes = state.early.removeValue(forKey: mid) { return .success(codes) }
                    if state.phase == .closed { return .failure(.shutdown) }
                    if !survivesReconnect, state.epoch != epoch {
                        return .failure(.connectionLost(code: Int(MOSQ_ERR_CONN_LOST.rawValue), reason: "the connection dropped before the packet was sent"))
                    }
                    // Cancelled before the wait began: the handler below found nothing to end.
                    if Task.isCancelled {
                        state.abandoned.insert(mid)
                        return .failure(.cancelled)
                    }
                    state.pending[mid] = PendingAck(continuation: continuation, survivesReconnect: survivesReconnect)
                    return nil
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            abandon(mid: mid)
        }
    }

    /// Ends the wait for `mid` with ``MQTTError/cancelled``, if one is under way; its
    /// acknowledgement will be dropped.
    private func abandon(mid: Int32) {
        let waiter = state.withLock { state -> PendingAck? in
            guard let ack = state.pending.removeValue(forKey: mid) else { return nil }
            state.abandoned.insert(mid)
            return ack
        }
        waiter?.continuation.resume(returning: .failure(.cancelled))
    }

    /// An acknowledgement from the network thread, with its reason codes (one for a publish,
    /// one per filter for a SUBACK).
    func acknowledge(mid: Int32, codes: [Int32]) {
        let waiter = state.withLock { state -> PendingAck? in
            if let ack = state.pending.removeValue(forKey: mid) { return ack }
            // Our own re-subscriptions after a reconnect: nobody waits.
            if state.internalMids.remove(mid) != nil { return nil }
            // A wait that was cancelled: nobody collects it.
            if state.abandoned.remove(mid) != nil { return nil }
            state.early[mid] = codes
            return nil
        }
        waiter?.continuation.resume(returning: .success(codes))
    }
}
