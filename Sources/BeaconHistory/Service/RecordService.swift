import BeaconMQTT
import Logging
import ServiceLifecycle

/// Connects (waiting out a broker that is not there yet, until a shutdown), then reads the events
/// and device states from the broker into the recorder. At shutdown it
/// disconnects first — the broker queues for the persistent session from that moment — and still
/// applies every message already received. When too much is pending (the database is slow or
/// failing) it waits for the flushes before reading on, so the backlog waits in the broker, not
/// in memory.
struct RecordService: Service, CustomStringConvertible {
    let client: MQTTClient
    let subscription: MQTTSubscription
    let recorder: HistoryRecorder
    let settings: HistorySettings
    let logger: Logger

    /// The name ServiceLifecycle logs.
    var description: String { "RecordService" }

    func run() async throws {
        let connected = try await cancelWhenGracefulShutdown { [client, settings, logger] in
            try await HistoryRuntime.connect(client, settings: settings, logger: logger)
        }
        guard connected else { return }
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

    /// Waits until the flushes have brought the pending records below the bound (the flush
    /// service is the only writer: one flush at a time).
    private func writeBeforeReadingOn() async {
        while recorder.pendingCount >= settings.maxPending, !Task.isCancelled {
            try? await Task.sleep(for: settings.flushInterval / 10)
        }
    }
}
