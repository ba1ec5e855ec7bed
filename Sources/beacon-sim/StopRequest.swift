import Foundation
import Synchronization
import UnixSignals

/// SIGTERM or SIGINT while `beacon-sim run` publishes: a request to end after the current window,
/// so that the run still writes the end of its truth and its gateways' `offline` statuses (a
/// service manager's stop, or Ctrl-C, is a clean exit), rather than the process ending at once.
final class StopRequest: Sendable {
    private let requested = Atomic<Bool>(false)
    /// The signal that asked, once one has.
    private let signal = Mutex<UnixSignal?>(nil)

    /// Makes a request nobody has made yet.
    init() {}

    /// Whether a signal has asked the run to stop.
    var isRequested: Bool { requested.load(ordering: .acquiring) }

    /// The signal that asked, for the run's last line.
    var reason: String? { signal.withLock { $0.map { "\($0)" } } }

    /// Runs `body` with SIGTERM and SIGINT trapped: the first sets ``isRequested`` instead of
    /// ending the process, a second ends it at once (status 128 + its number), as a second Ctrl-C
    /// is expected to. `body` is expected to look at ``isRequested`` at least once a second.
    func trapping(_ body: () async throws -> Void) async throws {
        let signals = await UnixSignalsSequence(trapping: .sigterm, .sigint)
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for await caught in signals {
                    if self.isRequested { exit(128 + caught.rawValue) }
                    self.signal.withLock { $0 = caught }
                    self.requested.store(true, ordering: .releasing)
                }
            }
            defer { group.cancelAll() }
            try await body()
        }
    }
}
