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
        /// Messages received so far, decoded or not: the journal numbers them alike.
        var received = 0
        /// Records of the batch being written.
        var inFlight = 0
        /// Writes failed in a row, since when, and when that was last said.
        var failures = 0
        var failingSince: ContinuousClock.Instant?
        var lastFailureReport: ContinuousClock.Instant?
    }

    /// How often failures that go on are said again.
    static let failureReportInterval = Duration.seconds(60)

    /// Where the visits go.
    public let database: any HistoryDatabase
    /// What was received and not yet written, dropped as the writes commit.
    public let journal: ArrivalJournal?
    private let scheme: TopicScheme
    private let logger: Logger
    private let metrics: RecorderMetrics
    private let state: Mutex<State>

    /// A recorder applying messages to `book` and writing to `database`, each message received
    /// having been appended to `journal` (if any) first.
    public init(
        book: VisitBook, database: any HistoryDatabase, journal: ArrivalJournal? = nil, scheme: TopicScheme, logger: Logger,
        metrics: RecorderMetrics = RecorderMetrics()
    ) {
        self.database = database
        self.journal = journal
        self.metrics = metrics
        self.scheme = scheme
        self.logger = logger
        state = Mutex(State(book: book))
    }

    /// Applies one message (an event or a device state); returns how many records are pending.
    /// A message that does not decode, or whose topic and payload disagree, is counted, logged
    /// (the first ones) and otherwise ignored.
    @discardableResult
    public func receive(_ message: MQTTMessage) -> Int {
        let input: Result<HistoryInput?, any Error> = Result { try HistoryInput(topic: message.topic, payload: message.payload, scheme: scheme) }
        // Counted in the same step as its records are made: a flush that takes the count takes them.
        let (outcome, rejected, pending) = state.withLock { state -> (RecorderMetrics.Outcome, Int?, Int) in
            state.received += 1
            let outcome: RecorderMetrics.Outcome
            switch input {
            case .success(.event(let event)?):
                state.book.apply(event, into: &state.pending)
                outcome = .applied
            case .success(.state(let deviceState)?):
                state.book.apply(deviceState, into: &state.pending)
                outcome = .applied
            case .success(nil):
                outcome = .skipped
            case .failure:
                state.rejected += 1
                outcome = .ignored
            }
            metrics.pending(state.pending.count + state.inFlight)
            return (outcome, outcome == .ignored ? state.rejected : nil, state.pending.count)
        }
        metrics.received(outcome)
        if let rejected, rejected <= 10 || rejected.isMultiple(of: 1000), case .failure(let error) = input {
            logger.warning("ignored a message (\(rejected) so far)", metadata: ["mqtt.topic": "\(message.topic)", "reason": "\(error)"])
        }
        return pending
    }

    /// Closes the visits nothing was heard of for too long (into the pending batch).
    public func closeStale() {
        state.withLock { state in state.book.closeStale(into: &state.pending) }
    }

    /// Writes everything pending in one transaction, then drops from the journal the messages
    /// it came from. When the write fails, the batch is kept (before anything received since)
    /// for the next flush, and the error thrown. One flush at a time: the recorder's
    /// ``FlushService`` is the only caller once recording (a later commit would otherwise drop
    /// the journal's messages of an earlier batch still in flight).
    public func flush() async throws(HistoryDatabaseError) {
        let (batch, received) = state.withLock { state in
            let batch = state.pending
            state.pending = HistoryBatch()
            state.inFlight = batch.count
            return (batch, state.received)
        }
        // Every message received so far has its records in this batch or in one written before.
        let written = { [journal] in journal?.discard(before: received + 1) }
        guard !batch.isEmpty else {
            written()
            return
        }
        do throws(HistoryDatabaseError) {
            try await database.write(batch)
            state.withLock { state in
                state.written += batch.count
                state.inFlight = 0
                metrics.pending(state.pending.count)
            }
            metrics.wrote(batch.count)
            written()
        } catch {
            metrics.failedWrite()
            state.withLock { state in
                var kept = batch
                kept.append(state.pending)
                state.pending = kept
                state.inFlight = 0
                metrics.pending(kept.count)
            }
            throw error
        }
    }

    /// Writes what is pending (``flush()``) and says how it went: a failure at once, then once a
    /// minute while they go on (a full disk fails every second), and when writing works again.
    /// Returns whether everything pending was written.
    @discardableResult
    public func flushReporting() async -> Bool {
        do {
            try await flush()
        } catch {
            let now = ContinuousClock.now
            let report = state.withLock { state -> (count: Int, since: ContinuousClock.Instant)? in
                state.failures += 1
                let since = state.failingSince ?? now
                state.failingSince = since
                if let last = state.lastFailureReport, now - last < Self.failureReportInterval { return nil }
                state.lastFailureReport = now
                return (state.failures, since)
            }
            if let report {
                logger.error(
                    "cannot write the visits (the \(pendingCount) records pending are kept for the next attempt): \(error)",
                    metadata: ["history.failed_writes": "\(report.count)", "history.failing_for": "\(now - report.since)"])
            }
            return false
        }
        let recovered = state.withLock { state -> (count: Int, since: ContinuousClock.Instant)? in
            defer { (state.failures, state.failingSince, state.lastFailureReport) = (0, nil, nil) }
            return state.failingSince.map { (state.failures, $0) }
        }
        if let recovered {
            logger.notice("writing the visits again", metadata: [
                "history.failed_writes": "\(recovered.count)", "history.failing_for": "\(ContinuousClock.now - recovered.since)",
            ])
        }
        return true
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
