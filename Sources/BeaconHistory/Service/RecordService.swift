import BeaconMQTT
import Logging
import ServiceLifecycle

/// Reads the events and device states from the broker into the recorder. At shutdown it
/// disconnects first — the broker queues for the persistent session from that moment — and still
/// applies every message already received. When too much is pending (the database is slow or
/// failing) it writes before reading on, so the backlog waits in the broker, not in memory.
struct RecordService: Service, CustomStringConvertible {
    let client: MQTTClient
    let subscription: MQTTSubscription
    let recorder: HistoryRecorder
    let settings: HistorySettings
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "RecordService" }

    func run() async {
        await withDiscardingTaskGroup { group in
            // Ends when the connection is closed and its buffer is empty.
            group.addTask {
                for await message in subscription {
                    guard recorder.receive(message) >= settings.maxPending else { continue }
                    await writeBeforeReadingOn()
                }
            }
            try? await gracefulShutdown()
            await client.disconnect()
        }
        logger.debug("shutting down: every received message applied")
    }

    /// Writes until the pending records are below the bound, waiting between failed attempts.
    private func writeBeforeReadingOn() async {
        while recorder.pendingCount >= settings.maxPending {
            do {
                try await recorder.flush()
            } catch {
                logger.error("cannot write the visits, retrying in \(settings.flushInterval): \(error)")
                try? await Task.sleep(for: settings.flushInterval)
            }
        }
    }
}

/// Writes the pending records every ``HistorySettings/flushInterval`` (a transaction per batch,
/// not per event), closes stale visits every ``HistorySettings/staleCheckInterval``, and writes
/// what is left once the reader has stopped.
struct FlushService: Service, CustomStringConvertible {
    let recorder: HistoryRecorder
    let settings: HistorySettings
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "FlushService" }

    func run() async {
        var sinceStaleCheck = Duration.zero
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await Task.sleep(for: settings.flushInterval)
            sinceStaleCheck += settings.flushInterval
            if sinceStaleCheck >= settings.staleCheckInterval {
                recorder.closeStale()
                sinceStaleCheck = .zero
                logger.info("recording: \(recorder.summary)")
            }
            await flush()
        }
        // The reader, stopped before this, has applied everything it received.
        await flush()
        logger.info("stopped: \(recorder.summary)")
    }

    private func flush() async {
        do {
            try await recorder.flush()
        } catch {
            logger.error("cannot write the visits (kept for the next attempt): \(error)")
        }
    }
}

/// Deletes the visits older than ``HistorySettings/keepDays`` at start and every
/// ``HistorySettings/retentionInterval``, by wall-clock time.
struct RetentionService: Service, CustomStringConvertible {
    let database: any HistoryDatabase
    let keepDays: Int
    let settings: HistorySettings
    let clock: @Sendable () -> Int64
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "RetentionService" }

    func run() async {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let cutoff = clock() - Int64(keepDays) * 86_400_000
                do {
                    let deleted = try await database.deleteVisits(before: cutoff)
                    if deleted > 0 { logger.info("retention: deleted \(deleted) visits older than \(keepDays) days") }
                } catch {
                    logger.error("retention: \(error)")
                }
                try? await Task.sleep(for: settings.retentionInterval)
            }
        }
    }
}
