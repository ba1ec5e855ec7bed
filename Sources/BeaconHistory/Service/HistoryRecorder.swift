public import BeaconMQTT
public import BeaconWire
public import Logging
import Synchronization

/// The recorder: each message from the broker goes through the ``VisitBook`` into a pending
/// batch, and ``flush()`` writes what is pending in one transaction. The one owner of the book
/// and the pending batch; messages are applied in the order they are received.
public final class HistoryRecorder: Sendable {
    private struct State {
        var book: VisitBook
        var pending = HistoryBatch()
        var rejected = 0
        var written = 0
    }

    /// Where the visits go.
    public let database: any HistoryDatabase
    private let scheme: TopicScheme
    private let logger: Logger
    private let state: Mutex<State>

    /// A recorder applying messages to `book` and writing to `database`.
    public init(book: VisitBook, database: any HistoryDatabase, scheme: TopicScheme, logger: Logger) {
        self.database = database
        self.scheme = scheme
        self.logger = logger
        state = Mutex(State(book: book))
    }

    /// Applies one message (an event or a device state); returns how many records are pending.
    /// A message that does not decode, or whose topic and payload disagree, is counted, logged
    /// (the first ones) and otherwise ignored.
    @discardableResult
    public func receive(_ message: MQTTMessage) -> Int {
        let input: HistoryInput
        do {
            guard let decoded = try HistoryInput(topic: message.topic, payload: message.payload, scheme: scheme) else {
                return state.withLock { $0.pending.count }
            }
            input = decoded
        } catch {
            let rejected = state.withLock { state in
                state.rejected += 1
                return state.rejected
            }
            if rejected <= 10 || rejected.isMultiple(of: 1000) {
                logger.warning("ignored a message (\(rejected) so far)", metadata: ["mqtt.topic": "\(message.topic)", "reason": "\(error)"])
            }
            return state.withLock { $0.pending.count }
        }
        return state.withLock { state in
            switch input {
            case .event(let event): state.book.apply(event, into: &state.pending)
            case .state(let deviceState): state.book.apply(deviceState, into: &state.pending)
            }
            return state.pending.count
        }
    }

    /// Closes the visits nothing was heard of for too long (into the pending batch).
    public func closeStale() {
        state.withLock { state in state.book.closeStale(into: &state.pending) }
    }

    /// Writes everything pending in one transaction. When the write fails, the batch is kept
    /// (before anything received since) for the next flush, and the error thrown.
    public func flush() async throws(HistoryDatabaseError) {
        let batch = state.withLock { state in
            let batch = state.pending
            state.pending = HistoryBatch()
            return batch
        }
        guard !batch.isEmpty else { return }
        do throws(HistoryDatabaseError) {
            try await database.write(batch)
            state.withLock { $0.written += batch.count }
        } catch {
            state.withLock { state in
                var kept = batch
                kept.append(state.pending)
                state.pending = kept
            }
            throw error
        }
    }

    /// What the recorder has done so far, for the log.
    public var summary: String {
        state.withLock { state in
            let counters = state.book.counters
            return "\(counters.events) events (\(counters.repeats) repeats), \(counters.states) states, \(counters.outOfDate) out of date, "
                + "\(state.book.openVisitCount) visits open, \(counters.staleClosed) closed as stale, \(state.written) records written, "
                + "\(state.pending.count) pending, \(state.rejected) messages ignored"
        }
    }

    /// The events and device states applied so far (repeats and out-of-date ones included).
    public var applied: Int { state.withLock { $0.book.counters.events + $0.book.counters.states } }

    /// Records waiting to be written.
    public var pendingCount: Int { state.withLock { $0.pending.count } }
}
