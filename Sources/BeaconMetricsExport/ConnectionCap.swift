import HummingbirdCore
import Logging

/// Hummingbird's connection gate for one listener: at ``HTTPListenerLimits/maxConnections`` open
/// connections the listener stops accepting until one closes (the rest wait in the kernel's
/// backlog). Reaching the cap is counted every time and logged at most once a minute, with how
/// often it happened since the last line, so that a flood is seen without flooding the log.
///
/// Hummingbird calls it on the listening socket's event loop only, so its own fields need no lock.
struct ConnectionCap: AvailableConnectionsDelegate {
    let statistics: HTTPListenerStatistics
    let logger: Logger
    /// When the last line was logged, and the times the cap was reached since.
    private var lastWarning: ContinuousClock.Instant?
    private var reachedSinceWarning = 0

    /// How often a cap still being reached is said again.
    static let warningInterval = Duration.seconds(60)

    /// The gate for the listener `statistics` describe.
    init(statistics: HTTPListenerStatistics, logger: Logger) {
        self.statistics = statistics
        self.logger = logger
    }

    mutating func connectionOpened() {
        guard statistics.opened() >= statistics.maxConnections else { return }
        statistics.recordCapReached()
        reachedSinceWarning += 1
        let now = ContinuousClock.now
        if let lastWarning, now - lastWarning < Self.warningInterval { return }
        logger.warning(
            "HTTP listener at its connection cap: accepting no more until a connection closes; idle ones close after the idle timeout",
            metadata: [
                "http.listener": "\(statistics.listener)", "http.max_connections": "\(statistics.maxConnections)",
                "http.cap_reached": "\(reachedSinceWarning)",
            ])
        lastWarning = now
        reachedSinceWarning = 0
    }

    mutating func connectionClosed() {
        statistics.closed()
    }

    func isAcceptingNewConnections() -> Bool {
        statistics.openConnections < statistics.maxConnections
    }
}
