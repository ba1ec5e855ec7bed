public import Hummingbird
public import HummingbirdCore
public import Logging

extension HTTPListenerLimits {
    /// Hummingbird's HTTP/1 server with the idle timeout.
    public var server: HTTPServerBuilder {
        .http1(configuration: HTTP1Channel.Configuration(idleTimeout: .nanoseconds(Self.nanoseconds(idleTimeout))))
    }

    /// An application configuration serving on `host:port` as `serverName`, gated by the cap
    /// (reported in `statistics`, logged to `logger`).
    public func configuration(
        host: String, port: Int, serverName: String, statistics: HTTPListenerStatistics, logger: Logger
    ) -> ApplicationConfiguration {
        ApplicationConfiguration(
            address: .hostname(host, port: port), serverName: serverName,
            availableConnectionsDelegate: ConnectionCap(statistics: statistics, logger: logger))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
