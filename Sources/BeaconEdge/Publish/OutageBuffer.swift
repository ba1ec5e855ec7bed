public import Logging
import Synchronization

/// Where sealed batches wait for the broker: a bounded first-in first-out queue between the
/// pipeline (which pushes one batch per window) and the publisher (which takes them one by one,
/// in order, and puts one back when the broker is unreachable).
///
/// **Bounded, drop-oldest.** At most ``maxBatches`` wait; a push beyond that drops the oldest and
/// counts it (``EdgeCounters/droppedBatches``, and its sightings in ``EdgeCounters/dropped``),
/// which the status reports. The newest data is what location decisions need, and the sequence
/// numbers make the gap visible to the aggregator.
///
/// **Spill file (optional).** With one, only the newest ``memoryBatches`` stay in memory; older
/// ones move to the file (still in order, still within the bound), and what is left in it when
/// the edge stops is sent after the next start.
///
/// One consumer (the publisher); any number of producers.
public final class OutageBuffer: Sendable {
    /// The most batches kept.
    public let maxBatches: Int
    /// With a spill file: the most batches kept in memory.
    public let memoryBatches: Int
    private let counters: EdgeCounters
    private let logger: Logger
    private let state: Mutex<State>

    private struct State: ~Copyable {
        /// A batch the publisher put back: older than anything else here.
        var front: SealedBatch?
        /// The oldest batches, on disk (nil without a spill file, or after it failed).
        var spill: SpillFile?
        /// The newest batches.
        var memory = FIFO<SealedBatch>()
        var waiter: CheckedContinuation<SealedBatch?, Never>?
        var inputFinished = false
        var drops: UInt64 = 0

        var count: Int { (front == nil ? 0 : 1) + (spill?.count ?? 0) + memory.count }
    }

    /// Makes a buffer; with `spillFile`, opens it and takes over the batches a previous run left.
    /// - Throws: ``SpillFileError`` when the spill file cannot be opened or is not one.
    public init(
        maxBatches: Int, memoryBatches: Int? = nil, spillFile: String? = nil, counters: EdgeCounters, logger: Logger
    ) throws(SpillFileError) {
        self.maxBatches = max(1, maxBatches)
        self.memoryBatches = max(1, min(memoryBatches ?? maxBatches, maxBatches))
        self.counters = counters
        self.logger = logger
        var spill: SpillFile?
        if let spillFile {
            spill = try SpillFile(path: spillFile)
            if let spilled = spill, spilled.count > 0 {
                logger.notice(
                    "batches left from an earlier run will be sent first",
                    metadata: ["buffer.spilled": "\(spilled.count)", "buffer.spill_file": "\(spillFile)"])
            }
        }
        state = Mutex(State(spill: spill))
    }

    /// Batches waiting now.
    public var count: Int { state.withLock { $0.count } }

    /// The highest sequence number waiting, if any (a new run continues after a spilled one).
    public var lastSequence: UInt64? {
        state.withLock { state in
            state.memory.elements.last?.sequence ?? state.spill?.entries.elements.last?.sequence ?? state.front?.sequence
        }
    }

    /// Adds the newest batch; drops the oldest when the bound is exceeded.
    public func push(_ batch: SealedBatch) {
        var dropped: [(UInt64, Int)] = []
        var failure: SpillFileError?
        let waiter = state.withLock { state -> CheckedContinuation<SealedBatch?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.memory.append(batch)
            if let spill = state.spill, state.memory.count > memoryBatches, let oldest = state.memory.first {
                do throws(SpillFileError) {
                    try spill.append(oldest)
                    _ = state.memory.popFirst()
                } catch {
                    failure = error
                    state.spill = nil  // keep going in memory; the file keeps what it had
                }
            }
            while state.count > maxBatches {
                if let front = state.front {
                    state.front = nil
                    dropped.append((front.sequence, front.sightings))
                } else if let spill = state.spill, spill.count > 0 {
                    do throws(SpillFileError) {
                        if let entry = try spill.dropFirst() { dropped.append((entry.sequence, entry.sightings)) }
                    } catch {
                        failure = error
                        state.spill = nil
                    }
                } else if let oldest = state.memory.popFirst() {
                    dropped.append((oldest.sequence, oldest.sightings))
                }
            }
            state.drops += UInt64(dropped.count)
            return nil
        }
        waiter?.resume(returning: batch)
        if let failure {
            logger.error("spill file failed; buffering in memory only from now on", metadata: ["buffer.error": "\(failure)"])
        }
        guard !dropped.isEmpty else { return }
        counters.recordDropped(batches: dropped.count, sightings: dropped.reduce(0) { $0 + $1.1 })
        let total = counters.droppedBatches.load(ordering: .relaxed)
        if total.nonzeroBitCount == 1 {  // 1, 2, 4, 8, … : visible without flooding the log
            logger.warning(
                "outage buffer full: dropped the oldest batches",
                metadata: [
                    "buffer.max_batches": "\(maxBatches)", "buffer.dropped_batches": "\(total)",
                    "buffer.dropped_seq": "\(dropped.map(\.0))",
                ])
        }
    }

    /// The oldest batch, waiting for one if none is there; nil once ``finishInput()`` was called
    /// and nothing is left, or when the calling task is cancelled. One caller at a time.
    public func take() async -> SealedBatch? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                var failure: SpillFileError?
                let result = state.withLock { state -> SealedBatch?? in
                    if let front = state.front {
                        state.front = nil
                        return front
                    }
                    if let spill = state.spill, spill.count > 0 {
                        do throws(SpillFileError) {
                            if let batch = try spill.popFirst() { return batch }
                        } catch {
                            failure = error
                            state.spill = nil
                        }
                    }
                    if let batch = state.memory.popFirst() { return batch }
                    // Cancelled before the wait began: the handler found no waiter to end.
                    if state.inputFinished || Task.isCancelled { return .some(nil) }
                    state.waiter = continuation
                    return .none
                }
                if let failure {
                    logger.error("spill file unreadable; its batches are lost", metadata: ["buffer.error": "\(failure)"])
                }
                if let result { continuation.resume(returning: result) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    /// Puts back a batch the publisher could not deliver; it is the next one ``take()`` returns.
    public func requeue(_ batch: SealedBatch) {
        let waiter = state.withLock { state -> CheckedContinuation<SealedBatch?, Never>? in
            if let waiter = state.waiter {
                state.waiter = nil
                return waiter
            }
            state.front = batch
            return nil
        }
        waiter?.resume(returning: batch)
    }

    /// No more pushes: ``take()`` returns what is left, then nil.
    public func finishInput() {
        let waiter = state.withLock { state -> CheckedContinuation<SealedBatch?, Never>? in
            state.inputFinished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// Moves what is still in memory to the spill file (at shutdown, when the broker did not take
    /// everything), so the next run sends it. Returns how many batches are kept on disk; without a
    /// spill file, 0 (those batches are lost with the process).
    @discardableResult
    public func persistRemaining(extra: SealedBatch? = nil) -> Int {
        state.withLock { state in
            guard let spill = state.spill else { return 0 }
            // The spill file holds the oldest batches, so only memory may follow them: a batch in
            // `front` or `extra` is older than the file's records and would break the order.
            var pending: [SealedBatch] = []
            if let extra { pending.append(extra) }
            if let front = state.front { pending.append(front) }
            if !pending.isEmpty && spill.count > 0 {
                logger.warning("batches older than the spill file's are lost", metadata: ["buffer.lost": "\(pending.count)"])
                pending = []
            }
            for batch in pending + Array(state.memory.elements) {
                do { try spill.append(batch) } catch { break }
            }
            state.front = nil
            state.memory = FIFO()
            return spill.count
        }
    }
}
