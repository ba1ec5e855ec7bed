import ArgumentParser
import BeaconCore

extension ExitCode {
    /// The exit code of `status`: every BeaconNet program takes its numbers from ``ExitStatus``.
    init(_ status: ExitStatus) { self.init(status.rawValue) }

    /// The exit code of `status`, after saying `message` on standard error: an `ExitCode` thrown
    /// ends the program without a word of its own.
    init(_ status: ExitStatus, saying message: String) {
        FileHandleStderr.write(message + "\n")
        self.init(status)
    }
}
