public import ArgumentParser
public import Logging

/// `--log-level`, and the one logging set-up every BeaconNet program uses: swift-log's stream
/// handler on standard error (standard output stays for a program's data), at that level.
public struct LoggingOptions: ParsableArguments, Sendable {
    /// `--log-level`, as given (see ``level``).
    @Option(help: "Log level: trace, debug, info, notice, warning, error or critical.")
    public var logLevel = "info"

    /// Info: what the flag means when it is not given.
    public init() {}

    /// The level of `--log-level` (checked by ``validate()``, so never nil after parsing).
    public var level: Logger.Level { Logger.Level(rawValue: logLevel) ?? .info }

    /// Refuses a level swift-log does not have.
    public func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else {
            throw ValidationError("--log-level \(logLevel) is not one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    /// Sends every logger of the process to standard error at ``level``. Once per process,
    /// before the first logger is made.
    public func bootstrap() {
        Self.bootstrap(level: level)
    }

    /// Sends every logger of the process to standard error at `level`: for a command without
    /// the flag. Once per process, before the first logger is made.
    public static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}
