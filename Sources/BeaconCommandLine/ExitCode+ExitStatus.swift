public import ArgumentParser
public import BeaconCore

extension ExitCode {
    /// The exit code of `status`: every BeaconNet program takes its numbers from ``ExitStatus``.
    public init(_ status: ExitStatus) { self.init(status.rawValue) }

    /// The exit code of `status`, after saying `message` on standard error behind the program's
    /// name (or `program`, for a subcommand that names itself): an `ExitCode` thrown ends the
    /// program without a word of its own.
    public init(_ status: ExitStatus, saying message: String, as program: String = StandardError.program) {
        StandardError.say(message, as: program)
        self.init(status)
    }
}
