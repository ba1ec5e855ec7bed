import Logging
import ServiceLifecycle

/// Writes the snapshot file every interval and, at shutdown, once every decision is made, a last
/// time: device states (outside ones too, so a device's `seq` survives a restart) and each
/// gateway's progress.
final class SnapshotService: Service {
    private let path: String
    private let interval: Duration
    private let decisions: Decisions
    private let logger: Logger

    /// Snapshots `decisions` to `path` every `interval`.
    init(path: String, interval: Duration, decisions: Decisions, logger: Logger) {
        self.path = path
        self.interval = interval
        self.decisions = decisions
        self.logger = logger
    }

    /// Writes until the graceful shutdown reaches it, then once more.
    func run() async {
        await cancelWhenGracefulShutdown {
            await Periodic.every(self.interval) { self.write() }
        }
        write()
    }

    private func write() {
        // Superseded, the instance's states are older than the hub's: the snapshot keeps its last.
        guard !decisions.isSuperseded else { return }
        do {
            try SnapshotFile.write(decisions.snapshot(), path: path)
            decisions.noteSnapshot(failure: nil)
        } catch {
            logger.error("snapshot not written (the previous one stays; the status says snapshot_error until a write succeeds): \(error)")
            decisions.noteSnapshot(failure: error)
        }
    }
}
