import Logging
import ServiceLifecycle

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
