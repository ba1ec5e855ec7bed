/// What one HTTP listener holds at most, so that clients that connect and never finish (or never
/// leave) cannot fill the process's file-descriptor table: the MQTT side, the snapshots and the
/// other listeners keep working whatever a listener is sent.
///
/// Both limits are Hummingbird's own: the connection cap is its `availableConnectionsDelegate`
/// (past the cap the listener stops accepting; new connections wait in the kernel's backlog, and
/// past that the kernel refuses them), and the idle timeout is its HTTP/1 channel's. That timeout
/// runs from the connection's start and from the end of each response until a complete request
/// head has been read, so it bounds both a keep-alive connection left idle and a request head
/// sent a byte at a time. A response being written (an event stream) is not timed out.
public struct HTTPListenerLimits: Sendable, Hashable {
    /// Connections open at once; past it the listener accepts no more until one closes.
    public var maxConnections: Int
    /// How long a connection may go without a complete request head (from its start, or from
    /// the end of its last response) before it is closed.
    public var idleTimeout: Duration

    /// Limits of `maxConnections` (at least 1) and `idleTimeout` (more than zero).
    public init(maxConnections: Int, idleTimeout: Duration) {
        self.maxConnections = max(1, maxConnections)
        self.idleTimeout = max(.milliseconds(1), idleTimeout)
    }

    /// `--metrics` of beacon-aggregator and beacon-edge: a scraper or two, each a request every
    /// few seconds; a head that takes 10 s to arrive is not a scraper's.
    public static let metrics = HTTPListenerLimits(maxConnections: 32, idleTimeout: .seconds(10))
}
