import ServiceLifecycle

/// Refreshes the instance's retained `online` status every interval (after the first, which the
/// start-up publishes) and, at shutdown, once every decision is made, publishes the final
/// status with the last counters (`offline`; a standby handing back stays `online`).
final class StatusService: Service {
    private let interval: Duration
    private let decisions: Decisions

    /// Publishes the status of `decisions` every `interval`.
    init(interval: Duration, decisions: Decisions) {
        self.interval = interval
        self.decisions = decisions
    }

    /// Refreshes until the graceful shutdown reaches it, then says `offline`.
    func run() async {
        await cancelWhenGracefulShutdown {
            await Periodic.every(self.interval) { self.decisions.outbox.enqueue([self.decisions.status(online: true)]) }
        }
        decisions.outbox.enqueue([decisions.finalStatus()])
    }
}
