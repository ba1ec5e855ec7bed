/// The exit statuses of every BeaconNet program, after BSD's `sysexits.h`, kept here so that the
/// numbers live once: a script or a systemd unit (`RestartPreventExitStatus=`) can then tell a
/// mistake that restarting will not mend — bad flags, bad input data, a bad config — from a
/// missing service that may come back, whichever program it runs.
public enum ExitStatus: Int32, Sendable, CaseIterable, CustomStringConvertible {
    /// Done (for a service: stopped by SIGTERM or SIGINT).
    case success = 0
    /// Bad flags or arguments (`EX_USAGE`); swift-argument-parser's `ValidationError` gives it too.
    case usage = 64
    /// Bad input data (`EX_DATAERR`): a capture, trace, truth file or dataset that is missing,
    /// unreadable, truncated or malformed. What could be read before the fault is still processed.
    case dataError = 65
    /// Something the program needs is not there (`EX_UNAVAILABLE`): the broker unreachable or
    /// refusing the login or TLS, no Bluetooth adapter or no permission to use it, a listen address
    /// already in use. Restarting later may succeed.
    case unavailable = 69
    /// The broker did not acknowledge every batch before the flush timeout (`EX_TEMPFAIL`,
    /// beacon-edge): the run did its work, but some of it may not have been delivered.
    case temporaryFailure = 75
    /// A config that fails validation (`EX_CONFIG`): a chain config, an edge config, a credential
    /// or certificate file it names.
    case configError = 78
    /// An unexpected internal failure: a fault none of the other statuses describes.
    case internalFailure = 1

    /// What the status means, a few words for `--help`.
    public var description: String {
        switch self {
        case .success: "done"
        case .usage: "bad flags or arguments"
        case .dataError: "bad input data (a missing, truncated or malformed capture, trace, truth file or dataset)"
        case .unavailable: "unavailable (broker unreachable or refusing, no Bluetooth adapter or permission, listen address in use)"
        case .temporaryFailure: "the broker did not acknowledge every batch before the flush timeout"
        case .configError: "bad config (a chain or edge config, or a credential or certificate file, that fails validation)"
        case .internalFailure: "an unexpected internal failure"
        }
    }

    /// Every status with its meaning, the paragraph each program's `--help` ends with.
    public static let help: String =
        "Exit status: " + allCases.map { "\($0.rawValue) \($0.description)" }.joined(separator: "; ") + "."
}
