public import Logging
import Synchronization

/// Log messages kept in memory, for tests that check what a component logged (a progress report,
/// a warning) rather than what it did.
public final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    /// An empty capture.
    public init() {}

    /// Every message logged so far, as `level message`, in order.
    public var messages: [String] { lines.withLock { $0 } }

    /// A logger whose messages at `level` and above land here.
    public func logger(label: String = "beaconnet.tests", level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { _ in Handler(capture: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ line: String) { lines.withLock { $0.append(line) } }

    private struct Handler: LogHandler {
        let capture: LogCapture
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { capture.append("\(event.level) \(event.message)") }
    }
}
