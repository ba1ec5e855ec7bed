import Logging
import ServiceLifecycle

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
            await recorder.flushReporting()
        }
        // The reader, stopped before this, has applied everything it received.
        await recorder.flushReporting()
        logger.info("stopped: \(recorder.summary)")
    }
}
