import Logging
import ServiceLifecycle

/// On a standby that has taken its primary's stores over: returns when the primary is back, so
/// that the instance's services stop as at a graceful shutdown — every sighting received is
/// decided, the snapshot written, the states drained to the hub — and its last status says it
/// no longer serves, which is the returning primary's cue to restore and go on.
final class StepBackService: Service {
    private let watch: PrimaryWatch
    private let arrivals: Int
    private let decisions: Decisions
    private let logger: Logger

    /// Watches `watch` for the primary asking for its stores in a status after the first
    /// `arrivals` (those heard before the takeover).
    init(watch: PrimaryWatch, arrivals: Int, decisions: Decisions, logger: Logger) {
        self.watch = watch
        self.arrivals = arrivals
        self.decisions = decisions
        self.logger = logger
    }

    func run() async {
        guard await watch.back(after: arrivals) else { return }
        logger.notice("handing the stores back: \(watch.primary) is online again")
        decisions.handingBack.withLock { $0 = true }
    }
}
